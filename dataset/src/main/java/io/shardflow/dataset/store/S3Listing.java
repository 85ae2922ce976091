package io.shardflow.dataset.store;

import io.minio.ListObjectsV2Response;
import io.minio.messages.Contents;
import io.minio.messages.ListBucketResultV2;
import io.minio.messages.Prefix;
import java.util.ArrayList;
import java.util.List;

/** The listing calls of {@link S3ObjectStore}: ListObjectsV2 pages turned into keys, objects and prefixes. */
final class S3Listing {

    private static final int LIST_PAGE = 1000;

    private final MinioLowLevel s3;
    private final String bucket;
    private final String region;

    S3Listing(MinioLowLevel s3, String bucket, String region) {
        this.s3 = s3;
        this.bucket = bucket;
        this.region = region;
    }

    /** Up to {@code maxKeys} keys under {@code prefix} after {@code startAfter}, in key order, paging as needed. */
    List<String> keys(String prefix, String startAfter, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
        }
        List<String> keys = new ArrayList<>();
        String token = null;
        try {
            while (keys.size() < maxKeys) {
                String pageToken = token;
                int page = Math.min(LIST_PAGE, maxKeys - keys.size());
                ListObjectsV2Response response = S3Errors.await(() -> s3.listV2(bucket, region, prefix, null,
                        pageToken == null ? startAfter : null, page, pageToken));
                ListBucketResultV2 result = response.result();
                for (Contents item : result.contents()) {
                    keys.add(item.objectName());
                }
                token = result.nextContinuationToken();
                if (!result.isTruncated() || token == null) {
                    break;
                }
            }
        } catch (S3Errors.Failure f) {
            throw f.wrap("list", prefix);
        }
        return keys.size() > maxKeys ? keys.subList(0, maxKeys) : keys;
    }

    /** One page (at most 1000) of objects with size and time under {@code prefix} after {@code startAfter}. */
    List<StoredObject> objects(String prefix, String startAfter, int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
        }
        List<StoredObject> objects = new ArrayList<>();
        try {
            ListObjectsV2Response response = S3Errors.await(() -> s3.listV2(bucket, region, prefix, null, startAfter,
                    Math.min(LIST_PAGE, maxKeys), null));
            for (Contents item : response.result().contents()) {
                objects.add(new StoredObject(item.objectName(), item.size(), item.lastModified().toInstant()));
            }
        } catch (S3Errors.Failure f) {
            throw f.wrap("listObjects", prefix);
        }
        return objects;
    }

    /** Every common prefix one level below {@code prefix} (delimiter "/"), all pages. */
    List<String> prefixes(String prefix) {
        List<String> prefixes = new ArrayList<>();
        String token = null;
        try {
            do {
                String pageToken = token;
                ListObjectsV2Response response = S3Errors.await(() -> s3.listV2(bucket, region, prefix, "/", null,
                        LIST_PAGE, pageToken));
                ListBucketResultV2 result = response.result();
                for (Prefix p : result.commonPrefixes()) {
                    prefixes.add(p.toItem().objectName());
                }
                token = result.isTruncated() ? result.nextContinuationToken() : null;
            } while (token != null);
        } catch (S3Errors.Failure f) {
            throw f.wrap("listPrefixes", prefix);
        }
        return prefixes;
    }
}
