package io.shardflow.dataset.store;

import io.minio.CreateMultipartUploadResponse;
import io.minio.ListObjectsV2Response;
import io.minio.MinioAsyncClient;
import io.minio.ObjectWriteResponse;
import io.minio.UploadPartResponse;
import io.minio.messages.Part;
import java.io.RandomAccessFile;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

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

    MinioLowLevel(MinioAsyncClient client) {
        super(client);
    }

    CompletableFuture<ObjectWriteResponse> putBytes(String bucket, String region, String key, byte[] bytes,
            Map<String, String> headers) throws Exception {
        return putObjectAsync(bucket, region, key, bytes, bytes.length, newMultimap(headers), null);
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
