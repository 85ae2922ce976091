package io.shardflow.dataset.store;

import io.minio.CreateMultipartUploadResponse;
import io.minio.ListObjectsV2Response;
import io.minio.MinioAsyncClient;
import io.minio.ObjectWriteResponse;
import io.minio.UploadPartResponse;
import io.minio.Signer;
import io.minio.credentials.Credentials;
import io.minio.errors.InsufficientDataException;
import io.minio.errors.InternalException;
import io.minio.http.HttpUtils;
import io.minio.http.Method;
import io.minio.messages.Part;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.BufferedSink;
import okio.Okio;
import okio.Source;

/**
 * Reaches the S3 calls that minio-java 8.6 keeps protected, and hides its Guava multimaps.
 *
 * <p>Why not {@code putObject(PutObjectArgs)}: it sends extra headers on CreateMultipartUpload
 * only, so {@code If-None-Match: *} would not guard the CompleteMultipartUpload of a big object and
 * the upload would silently overwrite (docs/ARCHITECTURE.md, invariant 3). The single PUT with headers and ListObjectsV2
 * with start-after are protected in {@code S3Base}; the protected copy constructor shares the
 * given client's HTTP client, endpoint and credentials.
 */
@SuppressWarnings("try") // close() is inherited from minio's S3Base, declared to throw Exception
final class MinioLowLevel extends MinioAsyncClient {

    /** What a body sent from memory hands okio at a time: its segment pool holds 64 KiB. */
    private static final int SEND_SLICE_BYTES = 1 << 16;

    MinioLowLevel(MinioAsyncClient client) {
        super(client);
    }

    CompletableFuture<ObjectWriteResponse> putBytes(String bucket, String region, String key, byte[] bytes,
            Map<String, String> headers) throws Exception {
        return putObjectAsync(bucket, region, key, bytes, bytes.length, newMultimap(headers), null);
    }

    /**
     * One create-only PUT of a file whose SHA-256 the caller computed already: the file streams from
     * disk (no copy in the heap) and the hash goes into {@code x-amz-content-sha256}, which the
     * request's signature covers and the server checks the body against. minio-java, given bytes,
     * would hash them again (SHA-256 over plain HTTP) and add an MD5 (Content-MD5): two more passes
     * over every shard, each dearer than the write itself.
     */
    CompletableFuture<Void> putHashedFile(String bucket, String region, String key, Path file, long size, String sha256Hex,
            Map<String, String> headers) throws Exception {
        return putHashed(bucket, region, key, size, sha256Hex, headers, sink -> {
            try (Source source = Okio.source(file.toFile())) {
                sink.writeAll(source);
            }
        });
    }

    /** As {@link #putHashedFile} for bytes in memory (a shard built there): sent from the buffer, never copied into the heap. */
    CompletableFuture<Void> putHashedBuffer(String bucket, String region, String key, ByteBuffer bytes, String sha256Hex,
            Map<String, String> headers) throws Exception {
        ByteBuffer body = bytes.duplicate();
        return putHashed(bucket, region, key, body.remaining(), sha256Hex, headers, sink -> {
            // A fresh view per attempt: the HTTP client may send the body again after a broken connection.
            ByteBuffer view = body.duplicate();
            // A slice at a time: okio copies a whole buffer into new segments before it sends any, so a
            // shard given at once would be a shard of garbage; a slice's segments go back to its pool.
            while (view.hasRemaining()) {
                ByteBuffer slice = view.slice();
                slice.limit(Math.min(slice.remaining(), SEND_SLICE_BYTES));
                sink.write(slice);
                view.position(view.position() + slice.position());
            }
        });
    }

    private CompletableFuture<Void> putHashed(String bucket, String region, String key, long size, String sha256Hex,
            Map<String, String> headers, BodyWriter writer) throws Exception {
        return getRegionAsync(bucket, region).thenCompose(location -> {
            try {
                return executeAsync(Method.PUT, bucket, key, location, Headers.of(headers), null,
                        new HashedBody(writer, size, sha256Hex, location), 0);
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }).thenAccept(Response::close);
    }

    /** Builds (and signs) the request of {@link #putHashedFile}; any other request as minio-java does. */
    @Override
    protected Request createRequest(HttpUrl url, Method method, Headers headers, Object body, int length, Credentials creds)
            throws InsufficientDataException, InternalException, IOException, NoSuchAlgorithmException {
        if (!(body instanceof HashedBody hashed)) {
            return super.createRequest(url, method, headers, body, length, creds);
        }
        // minio's own request for an empty body gives the host, date, agent and session-token headers; the
        // empty body's hashes are then replaced by the given body and its hash.
        Request request = super.createRequest(url, method, headers, HttpUtils.EMPTY_BODY, 0, creds).newBuilder()
                .removeHeader("Content-MD5").header("x-amz-content-sha256", hashed.sha256Hex).method(method.toString(), hashed).build();
        if (creds == null) {
            return request;
        }
        try {
            // minio signs only requests whose body it built: this one is signed here, over the given hash.
            return Signer.signV4S3(request, hashed.region, creds.accessKey(), creds.secretKey(), hashed.sha256Hex);
        } catch (InvalidKeyException e) {
            throw new InternalException("cannot sign the request: " + e.getMessage(), null);
        }
    }

    /** Writes a request body's bytes, from the start, each time it is called. */
    @FunctionalInterface
    private interface BodyWriter {
        void writeTo(BufferedSink sink) throws IOException;
    }

    /** A body of known size with the SHA-256 the caller vouches for. */
    private static final class HashedBody extends RequestBody {

        private static final MediaType OCTETS = MediaType.parse("application/octet-stream");

        private final BodyWriter writer;
        private final long size;
        private final String sha256Hex;
        private final String region;

        HashedBody(BodyWriter writer, long size, String sha256Hex, String region) {
            this.writer = writer;
            this.size = size;
            this.sha256Hex = sha256Hex;
            this.region = region;
        }

        @Override
        public MediaType contentType() {
            return OCTETS;
        }

        @Override
        public long contentLength() {
            return size;
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
            writer.writeTo(sink);
        }
    }

    CompletableFuture<CreateMultipartUploadResponse> createMultipart(String bucket, String region, String key,
            Map<String, String> headers) throws Exception {
        return createMultipartUploadAsync(bucket, region, key, newMultimap(headers), null);
    }

    /**
     * Uploads one part. {@code data} is a {@code byte[]} (all of it) or a {@link RandomAccessFile}
     * ({@code length} bytes from its current position).
     */
    CompletableFuture<UploadPartResponse> uploadPart(String bucket, String region, String key, String uploadId,
            int partNumber, Object data, long length) throws Exception {
        return uploadPartAsync(bucket, region, key, data, length, uploadId, partNumber, null, null);
    }

    CompletableFuture<ObjectWriteResponse> completeMultipart(String bucket, String region, String key, String uploadId,
            Part[] parts, Map<String, String> headers) throws Exception {
        return completeMultipartUploadAsync(bucket, region, key, uploadId, parts, newMultimap(headers), null);
    }

    CompletableFuture<?> abortMultipart(String bucket, String region, String key, String uploadId) throws Exception {
        return abortMultipartUploadAsync(bucket, region, key, uploadId, null, null);
    }

    CompletableFuture<ListObjectsV2Response> listV2(String bucket, String region, String prefix, String delimiter,
            String startAfter, int maxKeys, String continuationToken) throws Exception {
        return listObjectsV2Async(bucket, region, delimiter, null, startAfter, maxKeys, prefix, continuationToken,
                false, false, null, null);
    }
}
