package io.shardflow.dataset.store;

import io.minio.MinioAsyncClient;
import io.minio.http.HttpUtils;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import okhttp3.OkHttpClient;

/** Builds the minio client {@link S3ObjectStore#connect} uses from {@link S3Settings}. */
final class S3Clients {

    private static final Duration CONNECT = Duration.ofSeconds(10);
    private static final Duration READ_WRITE = Duration.ofSeconds(60);

    private S3Clients() {
    }

    /**
     * A client with bounded HTTP timeouts (minio's default is 5 minutes, long enough to hide an outage),
     * credentials from {@link S3Credentials}, and the settings' CA bundle trusted by this client only.
     */
    static MinioAsyncClient build(S3Settings settings) {
        MinioAsyncClient.Builder builder = MinioAsyncClient.builder()
                .endpoint(settings.endpoint())
                .credentialsProvider(S3Credentials.provider(settings, System.getenv()))
                .region(settings.region());
        if (!S3Settings.blank(settings.caBundle())) {
            builder.httpClient(trusting(settings.caBundle()), true);
        }
        MinioAsyncClient client = builder.build();
        client.setTimeout(CONNECT.toMillis(), READ_WRITE.toMillis(), READ_WRITE.toMillis());
        return client;
    }

    /** An HTTP client that trusts exactly the CAs in {@code pemFile}. */
    static OkHttpClient trusting(String pemFile) {
        try {
            return HttpUtils.enableExternalCertificates(HttpUtils.newDefaultHttpClient(CONNECT.toMillis(),
                    READ_WRITE.toMillis(), READ_WRITE.toMillis()), pemFile);
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException("S3 CA bundle " + pemFile + " cannot be used: " + e.getMessage(), e);
        }
    }
}
