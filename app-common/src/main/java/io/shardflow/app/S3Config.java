package io.shardflow.app;

import io.shardflow.dataset.store.S3Settings;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/** The object-store settings, the same keys in every shardflow process. */
public final class S3Config {

    public static final String ENDPOINT = "s3.endpoint";
    public static final String ACCESS_KEY = "s3.access.key";
    public static final String SECRET_KEY = "s3.secret.key";
    public static final String BUCKET = "s3.bucket";
    public static final String REGION = "s3.region";

    private S3Config() {
    }

    /** Adds the S3 keys to {@code definition} and returns it. */
    public static ConfigDef define(ConfigDef definition) {
        return definition
                .define(ENDPOINT, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        "S3 endpoint URL, e.g. http://127.0.0.1:9000")
                .define(ACCESS_KEY, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        "S3 access key")
                .define(SECRET_KEY, Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, "S3 secret key")
                .define(BUCKET, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, new ConfigDef.NonEmptyString(), Importance.HIGH,
                        "bucket holding the datasets")
                .define(REGION, Type.STRING, "us-east-1", Importance.LOW, "S3 region");
    }

    public static S3Settings settings(AbstractConfig config) {
        return new S3Settings(config.getString(ENDPOINT), config.getString(ACCESS_KEY),
                config.getPassword(SECRET_KEY).value(), config.getString(BUCKET), config.getString(REGION));
    }
}
