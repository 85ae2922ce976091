package io.shardflow.dataset.store;

import io.minio.BucketExistsArgs;
import io.minio.GetObjectArgs;
import io.minio.MakeBucketArgs;
import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ObjectStore} over minio-java's {@link MinioAsyncClient} (MinIO, S3Proxy, AWS S3).
 *
 * <p>Create-only writes (docs/ARCHITECTURE.md, invariant 3): objects below the part size go up in one PUT carrying
 * {@code If-None-Match: *}; bigger ones as a multipart upload whose Complete carries it (see
 * {@link MultipartPut}, parts in parallel). A 412 answer is confirmed with a HEAD before it is reported as
 * {@link PutOutcome#ALREADY_EXISTS}, so a misbehaving server cannot make a missing object look
 * committed.
 *
 * <p>Calls are blocking: each waits on the async client's future. minio's HTTP timeouts bound them.
 */
public final class S3ObjectStore implements ObjectStore, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(S3ObjectStore.class);

    /** Objects from this size on go multipart; also the part size. S3 allows 10,000 parts: 160 GiB. */
    public static final long DEFAULT_PART_SIZE = 16L * 1024 * 1024;
    /** S3's smallest allowed part (except the last). */
    static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    /** Parts of one multipart upload in flight at once: a 1 GiB shard is 64 parts, not 64 round trips in a row. */
    static final int PARALLEL_PARTS = 4;

    private static final Map<String, String> CREATE_ONLY = Map.of("If-None-Match", "*", "Content-Type", "application/octet-stream");
    private final MinioLowLevel s3;
    private final String bucket;
    private final String region;
    private final MultipartPut multipart;
    private final S3Listing listing;
    private final long partSize;
    private final boolean ownsClient;

    /**
     * @param client used as given; {@link #close()} leaves it open (its owner closes it)
     * @param region the bucket's region, e.g. {@code us-east-1}; null makes minio look it up
     */
    public S3ObjectStore(MinioAsyncClient client, String bucket, String region) {
        this(client, bucket, region, DEFAULT_PART_SIZE, false);
    }

    /** Package-private: tests use a small part size to exercise multipart without 16 MiB files. */
    S3ObjectStore(MinioAsyncClient client, String bucket, String region, long partSize, boolean ownsClient) {
        if (partSize < MIN_PART_SIZE) {
            throw new IllegalArgumentException("part size " + partSize + " is below S3's minimum of " + MIN_PART_SIZE);
        }
        this.s3 = new MinioLowLevel(client);
        this.bucket = bucket;
        this.region = region;
        this.partSize = partSize;
        this.ownsClient = ownsClient;
        this.listing = new S3Listing(s3, bucket, region);
        this.multipart = new MultipartPut(this, s3, bucket, region, partSize, PARALLEL_PARTS, true);
    }

    /**
     * Builds a client from settings with bounded HTTP timeouts, credentials from {@link S3Credentials},
     * and the settings' CA bundle trusted by this client only ({@link S3Clients}).
     */
    public static S3ObjectStore connect(S3Settings settings) {
        return new S3ObjectStore(S3Clients.build(settings), settings.bucket(), settings.region(), DEFAULT_PART_SIZE, true);
    }

    @Override
    public PutOutcome putIfAbsent(String key, byte[] bytes) {
        if (bytes.length >= partSize) {
            return multipart.put(key, bytes);
        }
        return createOnce(key, bytes.length, "", () -> s3.putBytes(bucket, region, key, bytes, CREATE_ONLY));
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
        long size = sizeOf(key, file);
        if (size >= partSize) {
            return multipart.put(key, file, size);
        }
        try {
            return putIfAbsent(key, Files.readAllBytes(file));
        } catch (IOException e) {
            throw new ObjectStoreException("putIfAbsent", key, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The shard upload: below the part size, one PUT that streams the file and sends the caller's
     * SHA-256 as the payload hash the request is signed with (and the server checks), so the file is
     * neither read into the heap nor hashed again here ({@link MinioLowLevel#putHashedFile}); above
     * it, multipart as {@link #putIfAbsent(String, Path)}.
     */
    @Override
    public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
        long size = sizeOf(key, file);
        if (size >= partSize) {
            return multipart.put(key, file, size);
        }
        return createOnce(key, size, sha256Hex, () -> s3.putHashedFile(bucket, region, key, file, size, sha256Hex, CREATE_ONLY));
    }

    /** A shard built in memory: sent from the buffer as {@link #putIfAbsent(String, Path, String)} sends a file. */
    @Override
    public PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
        int size = bytes.remaining();
        if (size >= partSize) {
            return multipart.put(key, bytes);
        }
        return createOnce(key, size, sha256Hex, () -> s3.putHashedBuffer(bucket, region, key, bytes, sha256Hex, CREATE_ONLY));
    }

    /** One create-only PUT; a refusal because the key exists is {@link PutOutcome#ALREADY_EXISTS} once a HEAD confirms it. */
    private <T> PutOutcome createOnce(String key, long size, String sha256Hex, S3Errors.Call<T> put) {
        try {
            S3Errors.await(put);
            log.debug("Created {} ({} bytes{})", key, size, sha256Hex.isEmpty() ? "" : ", sha256 " + sha256Hex);
            return PutOutcome.CREATED;
        } catch (S3Errors.Failure f) {
            return existingOrThrow("putIfAbsent", key, f);
        }
    }

    /**
     * Interprets a failed create-only write: 412 (or AWS's 409 for a concurrent conditional write)
     * means "already there" only if a HEAD confirms the object exists.
     */
    PutOutcome existingOrThrow(String operation, String key, S3Errors.Failure f) {
        Throwable reason = f.reason();
        if (!S3Errors.isPreconditionFailed(reason) && !S3Errors.isConditionalConflict(reason)) {
            throw f.wrap(operation, key);
        }
        if (head(key).isPresent()) {
            log.debug("{} already exists, left untouched", key);
            return PutOutcome.ALREADY_EXISTS;
        }
        throw new ObjectStoreException(operation, key, "the server refused the create-only write ("
                + S3Errors.describe(reason) + ") yet the object does not exist; retry later", reason);
    }

    @Override
    public Optional<byte[]> get(String key) {
        try (InputStream in = S3Errors.await(() -> s3.getObject(
                GetObjectArgs.builder().bucket(bucket).region(region).object(key).build()))) {
            return Optional.of(in.readAllBytes());
        } catch (S3Errors.Failure f) {
            if (S3Errors.isNoSuchKey(f.reason())) {
                return Optional.empty();
            }
            throw f.wrap("get", key);
        } catch (IOException e) {
            throw new ObjectStoreException("get", key, "reading the body failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void download(String key, Path target) {
        Path absolute = target.toAbsolutePath();
        Path partial = absolute.resolveSibling(absolute.getFileName() + ".part");
        try (InputStream in = S3Errors.await(() -> s3.getObject(
                GetObjectArgs.builder().bucket(bucket).region(region).object(key).build()))) {
            Files.createDirectories(absolute.getParent());
            Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
            // Readers never see a half-downloaded file under the final name.
            Files.move(partial, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (S3Errors.Failure f) {
            if (S3Errors.isNoSuchKey(f.reason())) {
                throw new ObjectNotFoundException("download", key);
            }
            throw f.wrap("download", key);
        } catch (IOException e) {
            deleteQuietly(partial);
            throw new ObjectStoreException("download", key, "writing " + target + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public InputStream getRange(String key, long offset, long length) {
        if (length < 1) {
            return InputStream.nullInputStream();
        }
        try {
            return S3Errors.await(() -> s3.getObject(GetObjectArgs.builder().bucket(bucket).region(region).object(key)
                    .offset(offset).length(length).build()));
        } catch (S3Errors.Failure f) {
            if (S3Errors.isNoSuchKey(f.reason())) {
                throw new ObjectNotFoundException("getRange", key);
            }
            throw f.wrap("getRange", key);
        }
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        try {
            StatObjectResponse stat = S3Errors.await(() -> s3.statObject(
                    StatObjectArgs.builder().bucket(bucket).region(region).object(key).build()));
            return Optional.of(new ObjectInfo(key, stat.size(), stripQuotes(stat.etag())));
        } catch (S3Errors.Failure f) {
            if (S3Errors.isNoSuchKey(f.reason())) {
                return Optional.empty();
            }
            throw f.wrap("head", key);
        }
    }

    @Override
    public List<String> list(String prefix, String startAfter, int maxKeys) {
        return listing.keys(prefix, startAfter, maxKeys);
    }

    @Override
    public List<StoredObject> listObjects(String prefix, String startAfter, int maxKeys) {
        return listing.objects(prefix, startAfter, maxKeys);
    }

    @Override
    public void delete(String key) {
        try {
            S3Errors.await(() -> s3.removeObject(
                    RemoveObjectArgs.builder().bucket(bucket).region(region).object(key).build()));
        } catch (S3Errors.Failure f) {
            if (!S3Errors.isNoSuchKey(f.reason())) {
                throw f.wrap("delete", key);
            }
        }
    }

    @Override
    public List<String> listPrefixes(String prefix) {
        return listing.prefixes(prefix);
    }

    @Override
    public void ensureBucket() {
        try {
            boolean exists = S3Errors.await(() -> s3.bucketExists(
                    BucketExistsArgs.builder().bucket(bucket).region(region).build()));
            if (!exists) {
                S3Errors.await(() -> s3.makeBucket(MakeBucketArgs.builder().bucket(bucket).region(region).build()));
                log.info("Created bucket {}", bucket);
            }
        } catch (S3Errors.Failure f) {
            if (!S3Errors.isBucketAlreadyOurs(f.reason())) {
                throw f.wrap("ensureBucket", bucket);
            }
        }
    }

    /** Closes the HTTP client if {@link #connect} built it. */
    @Override
    public void close() {
        if (!ownsClient) {
            return;
        }
        try {
            s3.close();
        } catch (Exception e) {
            log.warn("Closing the S3 client failed", e);
        }
    }

    private static long sizeOf(String key, Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new ObjectStoreException("putIfAbsent", key, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static String stripQuotes(String etag) {
        return etag == null ? null : etag.replace("\"", "");
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.warn("Could not delete partial download {}", path, e);
        }
    }
}
