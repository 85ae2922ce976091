package io.shardflow.app;

import io.shardflow.dataset.store.S3Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * The object-store settings, the same keys in every shardflow process. Credentials are static keys
 * (the secret inline or, better, in a file: {@code s3.secret.key.file}, e.g. a mounted Kubernetes
 * secret) or, when no access key is set, the standard AWS chain (environment, web identity token,
 * profile file; see {@code S3Credentials}).
 */
public final class S3Config {

    public static final String ENDPOINT = "s3.endpoint";
    public static final String ACCESS_KEY = "s3.access.key";
    public static final String SECRET_KEY = "s3.secret.key";
    public static final String SECRET_KEY_FILE = "s3.secret.key.file";
    public static final String SESSION_TOKEN = "s3.session.token";
    public static final String CA_BUNDLE = "s3.ca.bundle";
    public static final String BUCKET = "s3.bucket";
    public static final String REGION = "s3.region";

    private S3Config() {
    }

    /** Adds the S3 keys to {@code definition} and returns it. */
    public static ConfigDef define(ConfigDef definition) {
        return definition
                .define(ENDPOINT, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        "S3 endpoint URL, e.g. http://127.0.0.1:9000 or https://s3.example.com")
                .define(ACCESS_KEY, Type.STRING, "", Importance.HIGH,
                        "S3 access key; empty to take credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY/AWS_SESSION_TOKEN, "
                                + "AWS_WEB_IDENTITY_TOKEN_FILE or the AWS profile file")
                .define(SECRET_KEY, Type.PASSWORD, null, Importance.HIGH, "S3 secret key (prefer " + SECRET_KEY_FILE + ")")
                .define(SECRET_KEY_FILE, Type.STRING, "", Importance.HIGH, "file holding the S3 secret key")
                .define(SESSION_TOKEN, Type.PASSWORD, null, Importance.LOW, "session token of temporary static credentials")
                .define(CA_BUNDLE, Type.STRING, "", Importance.MEDIUM,
                        "PEM file of the CAs to trust for an https endpoint (this client only); empty for the JVM's defaults")
                .define(BUCKET, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        "bucket holding the datasets")
                .define(REGION, Type.STRING, "us-east-1", Importance.LOW, "S3 region");
    }

    public static S3Settings settings(AbstractConfig config) {
        String accessKey = config.getString(ACCESS_KEY);
        String secretKey = secretKey(config);
        if (!accessKey.isEmpty() && secretKey == null) {
            throw new ConfigException(SECRET_KEY, "[hidden]", "is not set while " + ACCESS_KEY + " is; set it or " + SECRET_KEY_FILE);
        }
        try {
            return new S3Settings(config.getString(ENDPOINT), accessKey, secretKey, config.getString(BUCKET),
                    config.getString(REGION), value(config.getPassword(SESSION_TOKEN)), config.getString(CA_BUNDLE));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    private static String secretKey(AbstractConfig config) {
        String file = config.getString(SECRET_KEY_FILE);
        if (file.isEmpty()) {
            return value(config.getPassword(SECRET_KEY));
        }
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException e) {
            throw new ConfigException(SECRET_KEY_FILE, file, "cannot be read: " + e.getMessage());
        }
    }

    private static String value(Password password) {
        return password == null || password.value().isEmpty() ? null : password.value();
    }
}
