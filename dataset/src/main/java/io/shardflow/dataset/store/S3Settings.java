package io.shardflow.dataset.store;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Connection settings for an S3-compatible server.
 *
 * @param endpoint     e.g. {@code http://127.0.0.1:9000}
 * @param accessKey    static credentials; both null or blank: the standard chain instead (see {@link S3Credentials})
 * @param region       may be null or blank: defaults to {@code us-east-1}, which MinIO and S3Proxy accept
 *                     and which spares a GetBucketLocation round trip
 * @param sessionToken with temporary static credentials; null or blank for none
 * @param caBundle     PEM file of the CAs trusted for an https endpoint, for this client only (not the
 *                     JVM-wide trust store); null or blank for the JVM's defaults
 */
public record S3Settings(String endpoint, String accessKey, String secretKey, String bucket, String region,
                         String sessionToken, String caBundle) {

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
        if (blank(accessKey) != blank(secretKey)) {
            throw new IllegalArgumentException(blank(accessKey) ? "S3 access key is not set (the secret key is)"
                    : "S3 secret key is not set (the access key is)");
        }
        if (bucket == null || !BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new IllegalArgumentException("S3 bucket '" + bucket + "' is invalid: 3-63 characters of lowercase"
                    + " letters, digits, '.' and '-', starting and ending with a letter or digit");
        }
        region = region == null || region.isBlank() ? DEFAULT_REGION : region;
        if (!blank(caBundle) && !Files.isReadable(Path.of(caBundle))) {
            throw new IllegalArgumentException("S3 CA bundle " + caBundle + " is not a readable file");
        }
    }

    /** Static keys, no session token, the JVM's trusted CAs. */
    public S3Settings(String endpoint, String accessKey, String secretKey, String bucket, String region) {
        this(endpoint, accessKey, secretKey, bucket, region, null, null);
    }

    /** True when static keys are set; otherwise credentials come from the standard chain. */
    public boolean hasStaticKeys() {
        return !blank(accessKey);
    }

    static boolean blank(String value) {
        return value == null || value.isBlank();
    }

    /** Never prints the secret key or the session token: settings end up in logs and exception messages. */
    @Override
    public String toString() {
        return "S3Settings[endpoint=" + endpoint + ", accessKey=" + (hasStaticKeys() ? accessKey : "(standard chain)")
                + ", secretKey=****, sessionToken=" + (blank(sessionToken) ? "none" : "****") + ", bucket=" + bucket
                + ", region=" + region + ", caBundle=" + (blank(caBundle) ? "JVM default" : caBundle) + "]";
    }
}
