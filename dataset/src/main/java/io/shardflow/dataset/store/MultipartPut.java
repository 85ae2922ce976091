package io.shardflow.dataset.store;

import io.minio.messages.Part;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Create-only multipart upload: CreateMultipartUpload, UploadPart in fixed-size parts, then
 * CompleteMultipartUpload with {@code If-None-Match: *}. The condition is checked by the server
 * on Complete, which is the moment the object appears; a condition on Create alone would let two
 * racing uploads both succeed and the later one overwrite.
 *
 * <p>Any failure aborts the upload so no parts linger (and cost storage). Up to
 * {@code parallelParts} parts go up at once, each read from the file by its own task (its own file
 * handle), so a large shard's upload is not one round trip per part in a row; memory stays at one
 * part buffer per part in flight. Create-only does not depend on part order: only the conditional
 * Complete makes the object appear.
 */
final class MultipartPut {

    private static final Logger log = LoggerFactory.getLogger(MultipartPut.class);
    private static final Map<String, String> CONTENT_TYPE = Map.of("Content-Type", "application/octet-stream");
    private static final Map<String, String> CREATE_ONLY = Map.of("If-None-Match", "*");
    private static final ThreadFactory PART_THREADS = task -> {
        Thread thread = new Thread(task, "s3-part-upload");
        thread.setDaemon(true);
        return thread;
    };

    /** Uploads one part: bytes {@code [offset, offset + length)} of the source as part {@code partNumber}. */
    @FunctionalInterface
    private interface PartUploader {
        String upload(String uploadId, int partNumber, long offset, long length) throws S3Errors.Failure, IOException;
    }

    private final S3ObjectStore store;
    private final MinioLowLevel s3;
    private final String bucket;
    private final String region;
    private final long partSize;
    private final int parallelParts;
    private final boolean skipIfPresent;

    /**
     * @param parallelParts most parts uploaded at once
     * @param skipIfPresent HEAD first and skip the upload if the key exists; false only in tests
     *                      that need the conditional Complete itself to refuse
     */
    MultipartPut(S3ObjectStore store, MinioLowLevel s3, String bucket, String region, long partSize, int parallelParts,
            boolean skipIfPresent) {
        if (parallelParts < 1) {
            throw new IllegalArgumentException("parallel parts must be >= 1, got " + parallelParts);
        }
        this.store = store;
        this.s3 = s3;
        this.bucket = bucket;
        this.region = region;
        this.partSize = partSize;
        this.parallelParts = parallelParts;
        this.skipIfPresent = skipIfPresent;
    }

    PutOutcome put(String key, Path file, long size) {
        return upload(key, size, (uploadId, partNumber, offset, length) -> {
            // One handle per part: minio reads the part from the handle's current position, and parts run in parallel.
            try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
                in.seek(offset);
                return S3Errors.await(() -> s3.uploadPart(bucket, region, key, uploadId, partNumber, in, length)).etag();
            } catch (IOException e) {
                throw new ObjectStoreException("putIfAbsent", key, "cannot read " + file + ": " + e.getMessage(), e);
            }
        });
    }

    PutOutcome put(String key, byte[] bytes) {
        return upload(key, bytes.length, (uploadId, partNumber, offset, length) -> {
            byte[] part = Arrays.copyOfRange(bytes, (int) offset, (int) (offset + length));
            return S3Errors.await(() -> s3.uploadPart(bucket, region, key, uploadId, partNumber, part, length)).etag();
        });
    }

    PutOutcome put(String key, ByteBuffer bytes) {
        ByteBuffer source = bytes.duplicate();
        int start = source.position();
        return upload(key, source.remaining(), (uploadId, partNumber, offset, length) -> {
            byte[] part = new byte[(int) length];
            source.duplicate().position(start + (int) offset).get(part);
            return S3Errors.await(() -> s3.uploadPart(bucket, region, key, uploadId, partNumber, part, length)).etag();
        });
    }

    private PutOutcome upload(String key, long size, PartUploader uploader) {
        // A replayed shard is usually already there: a HEAD spares re-sending it. The conditional
        // Complete below still decides if the object appears between this check and the end.
        if (skipIfPresent && store.head(key).isPresent()) {
            log.debug("{} already exists, multipart upload skipped", key);
            return PutOutcome.ALREADY_EXISTS;
        }
        String uploadId;
        try {
            uploadId = S3Errors.await(() -> s3.createMultipart(bucket, region, key, CONTENT_TYPE)).result().uploadId();
        } catch (S3Errors.Failure f) {
            throw f.wrap("putIfAbsent (create multipart upload)", key);
        }
        try {
            Part[] partArray = uploadParts(uploadId, size, uploader);
            try {
                S3Errors.await(() -> s3.completeMultipart(bucket, region, key, uploadId, partArray, CREATE_ONLY));
            } catch (S3Errors.Failure f) {
                abort(key, uploadId);
                return store.existingOrThrow("putIfAbsent (complete multipart upload)", key, f);
            }
            log.debug("Created {} ({} bytes in {} parts)", key, size, partArray.length);
            return PutOutcome.CREATED;
        } catch (S3Errors.Failure f) {
            abort(key, uploadId);
            throw f.wrap("putIfAbsent (upload part)", key);
        } catch (IOException | RuntimeException e) {
            abort(key, uploadId);
            throw e instanceof ObjectStoreException ose ? ose
                    : new ObjectStoreException("putIfAbsent (upload part)", key, e.toString(), e);
        }
    }

    /** Uploads every part, at most {@link #parallelParts} at once; the first failure cancels the rest. */
    private Part[] uploadParts(String uploadId, long size, PartUploader uploader) throws S3Errors.Failure, IOException {
        int count = Math.toIntExact((size + partSize - 1) / partSize);
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(parallelParts, count), PART_THREADS);
        try {
            List<Future<String>> etags = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int partNumber = i + 1;
                long offset = i * partSize;
                long length = Math.min(partSize, size - offset);
                etags.add(pool.submit(() -> uploader.upload(uploadId, partNumber, offset, length)));
            }
            Part[] parts = new Part[count];
            for (int i = 0; i < count; i++) {
                parts[i] = new Part(i + 1, etagOf(etags.get(i)));
            }
            return parts;
        } finally {
            pool.shutdownNow();
        }
    }

    private static String etagOf(Future<String> part) throws S3Errors.Failure, IOException {
        try {
            return part.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while uploading parts", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof S3Errors.Failure failure) {
                throw failure;
            }
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("part upload failed", cause);
        }
    }

    private void abort(String key, String uploadId) {
        try {
            S3Errors.await(() -> s3.abortMultipart(bucket, region, key, uploadId));
        } catch (S3Errors.Failure f) {
            // The original failure matters more; a lingering upload is cleaned by a bucket lifecycle rule.
            log.warn("Could not abort multipart upload {} of {}: {}", uploadId, key, S3Errors.describe(f.reason()));
        }
    }
}
