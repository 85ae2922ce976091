package io.shardflow.dataset.store;

import io.minio.credentials.AwsConfigProvider;
import io.minio.credentials.IamAwsProvider;
import io.minio.credentials.Provider;
import io.minio.credentials.StaticProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where the S3 client's credentials come from, in the order the AWS SDKs use: static keys from the
 * settings; else the environment ({@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY},
 * {@code AWS_SESSION_TOKEN}); else a web identity token ({@code AWS_WEB_IDENTITY_TOKEN_FILE} with
 * {@code AWS_ROLE_ARN}, as on Kubernetes); else the shared credentials file
 * ({@code AWS_SHARED_CREDENTIALS_FILE} or {@code ~/.aws/credentials}, profile {@code AWS_PROFILE}).
 * The instance metadata service is deliberately not tried: a process that has none of these should
 * fail at start with a clear message, not wait on a link-local address.
 */
public final class S3Credentials {

    private S3Credentials() {
    }

    /** The provider for {@code settings}; {@code environment} is normally {@code System.getenv()}. */
    public static Provider provider(S3Settings settings, Map<String, String> environment) {
        if (settings.hasStaticKeys()) {
            return new StaticProvider(settings.accessKey(), settings.secretKey(), blankToNull(settings.sessionToken()));
        }
        String accessKey = environment.get("AWS_ACCESS_KEY_ID");
        String secretKey = environment.get("AWS_SECRET_ACCESS_KEY");
        if (!S3Settings.blank(accessKey) && !S3Settings.blank(secretKey)) {
            return new StaticProvider(accessKey, secretKey, blankToNull(environment.get("AWS_SESSION_TOKEN")));
        }
        if (!S3Settings.blank(environment.get("AWS_WEB_IDENTITY_TOKEN_FILE"))) {
            // reads AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN, AWS_REGION and exchanges the token at STS
            return new IamAwsProvider(null, null);
        }
        Path profileFile = profileFile(environment);
        if (Files.isReadable(profileFile)) {
            return new AwsConfigProvider(profileFile.toString(), environment.getOrDefault("AWS_PROFILE", "default"));
        }
        throw new IllegalArgumentException("no S3 credentials: set the access and secret key, or AWS_ACCESS_KEY_ID and "
                + "AWS_SECRET_ACCESS_KEY, or AWS_WEB_IDENTITY_TOKEN_FILE, or a profile in " + profileFile);
    }

    private static Path profileFile(Map<String, String> environment) {
        String file = environment.get("AWS_SHARED_CREDENTIALS_FILE");
        if (!S3Settings.blank(file)) {
            return Path.of(file);
        }
        return Path.of(environment.getOrDefault("HOME", System.getProperty("user.home")), ".aws", "credentials");
    }

    private static String blankToNull(String value) {
        return S3Settings.blank(value) ? null : value;
    }
}
