package io.shardflow.dataset.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;

/**
 * Connection settings for an S3-compatible server.
 *
 * @param endpoint e.g. {@code http://127.0.0.1:9000}
 * @param region   may be null or blank: defaults to {@code us-east-1}, which MinIO and S3Proxy accept
 *                 and which spares a GetBucketLocation round trip
 */
public record S3Settings(String endpoint, String accessKey, String secretKey, String bucket, String region) {

    public static final String DEFAULT_REGION = "us-east-1";

    // S3 bucket naming rules (3-63 characters, lowercase letters, digits, '.', '-', alphanumeric at both ends).
    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    public S3Settings {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("S3 endpoint is not set (e.g. http://127.0.0.1:9000)");
        }
        try {
            URI uri = new URI(endpoint);
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new IllegalArgumentException("S3 endpoint '" + endpoint + "' must be an http:// or https:// URL with a host");
            }
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("S3 endpoint '" + endpoint + "' is not a valid URL: " + e.getMessage(), e);
        }
        if (accessKey == null || accessKey.isBlank()) {
            throw new IllegalArgumentException("S3 access key is not set");
        }
        if (secretKey == null || secretKey.isBlank()) {
            throw new IllegalArgumentException("S3 secret key is not set");
        }
        if (bucket == null || !BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException("S3 bucket '" + bucket + "' is invalid: 3-63 characters of lowercase"
                    + " letters, digits, '.' and '-', starting and ending with a letter or digit");
        }
        region = region == null || region.isBlank() ? DEFAULT_REGION : region;
    }

    /** Never prints the secret key: settings end up in logs and exception messages. */
    @Override
    public String toString() {
        return "S3Settings[endpoint=" + endpoint + ", accessKey=" + accessKey + ", secretKey=****, bucket=" + bucket
                + ", region=" + region + "]";
    }
}
