package io.shardflow.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What to start. Ports are not configured: free ones on 127.0.0.1 are picked at start (and reused
 * when the same work dir is started again, so endpoints stay stable across {@code down}/{@code up}).
 *
 * @param workDir      holds every server's data, config and log, plus {@code stack.json}
 * @param s3Kind       S3Proxy (default, fast) or MinIO (the production target)
 * @param bucket       created at start
 * @param topics       created at start
 * @param toolsDir     where scripts/fetch-tools.sh installed the servers; {@code null} = the default
 *                     ({@code SHARDFLOW_TOOLS} or {@code ~/.cache/shardflow/tools})
 * @param detached     servers outlive this JVM (the CLI's {@code up}); otherwise they are children
 *                     stopped by {@link LocalStack#close()} or, failing that, a shutdown hook
 * @param s3AccessKey  S3 identity (MinIO needs at least 3 characters)
 * @param s3SecretKey  S3 credential (MinIO needs at least 8 characters)
 * @param startTimeout per server, from spawn to ready; generous because three JVMs share 2 cores
 * @param secure       the broker takes only SASL_SSL (SCRAM-SHA-512) and mTLS clients, with users
 *                     and least-privilege ACLs per {@link StackPrincipal}, certificates from a local CA
 */
public record StackConfig(
        Path workDir,
        S3Kind s3Kind,
        String bucket,
        List<TopicSpec> topics,
        Path toolsDir,
        boolean detached,
        String s3AccessKey,
        String s3SecretKey,
        Duration startTimeout,
        boolean secure) {

    public static final String DEFAULT_BUCKET = "shardflow";
    public static final String DEFAULT_ACCESS_KEY = "shardflow";
    public static final String DEFAULT_SECRET_KEY = "shardflow-secret";
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(90);

    // S3 bucket naming rules, the subset both S3Proxy and MinIO accept.
    private static final Pattern BUCKET_NAME = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    public StackConfig {
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(s3Kind, "s3Kind");
        Objects.requireNonNull(bucket, "bucket");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(s3AccessKey, "s3AccessKey");
        Objects.requireNonNull(s3SecretKey, "s3SecretKey");
        Objects.requireNonNull(startTimeout, "startTimeout");
        // Absolute: the path is written into server command lines and later matched against
        // /proc/<pid>/cmdline to recognise our processes.
        workDir = workDir.toAbsolutePath().normalize();
        toolsDir = toolsDir == null ? null : toolsDir.toAbsolutePath().normalize();
        topics = List.copyOf(topics);
        if (!BUCKET_NAME.matcher(bucket).matches()) {
            throw new IllegalArgumentException("invalid bucket name '" + bucket
                    + "': 3-63 characters of a-z, 0-9, '.', '-'");
        }
        Set<String> names = new HashSet<>();
        for (TopicSpec topic : topics) {
            if (!names.add(topic.name())) {
                throw new IllegalArgumentException("topic " + topic.name() + " is listed twice");
            }
        }
        if (s3AccessKey.length() < 3 || s3SecretKey.length() < 8) {
            throw new IllegalArgumentException("S3 access key needs >= 3 and secret key >= 8 characters");
        }
        if (startTimeout.isNegative() || startTimeout.isZero()) {
            throw new IllegalArgumentException("startTimeout must be positive, got " + startTimeout);
        }
    }

    /** S3Proxy, bucket {@code shardflow}, the pipeline's topics, attached to this JVM. */
    public static StackConfig defaults(Path workDir) {
        return new StackConfig(workDir, S3Kind.S3PROXY, DEFAULT_BUCKET, TopicSpec.DEFAULTS, null, false,
                DEFAULT_ACCESS_KEY, DEFAULT_SECRET_KEY, DEFAULT_START_TIMEOUT, false);
    }

    public StackConfig withS3Kind(S3Kind kind) {
        return new StackConfig(workDir, kind, bucket, topics, toolsDir, detached, s3AccessKey, s3SecretKey,
                startTimeout, secure);
    }

    public StackConfig withBucket(String name) {
        return new StackConfig(workDir, s3Kind, name, topics, toolsDir, detached, s3AccessKey, s3SecretKey,
                startTimeout, secure);
    }

    public StackConfig withTopics(List<TopicSpec> specs) {
        return new StackConfig(workDir, s3Kind, bucket, specs, toolsDir, detached, s3AccessKey, s3SecretKey,
                startTimeout, secure);
    }

    public StackConfig withToolsDir(Path dir) {
        return new StackConfig(workDir, s3Kind, bucket, topics, dir, detached, s3AccessKey, s3SecretKey,
                startTimeout, secure);
    }

    public StackConfig withDetached(boolean outliveJvm) {
        return new StackConfig(workDir, s3Kind, bucket, topics, toolsDir, outliveJvm, s3AccessKey, s3SecretKey,
                startTimeout, secure);
    }

    public StackConfig withStartTimeout(Duration timeout) {
        return new StackConfig(workDir, s3Kind, bucket, topics, toolsDir, detached, s3AccessKey, s3SecretKey,
                timeout, secure);
    }

    public StackConfig withSecure(boolean secured) {
        return new StackConfig(workDir, s3Kind, bucket, topics, toolsDir, detached, s3AccessKey, s3SecretKey,
                startTimeout, secured);
    }

    /** Where {@code stack.json} lives. */
    public Path stateFile() {
        return workDir.resolve(StackState.FILE_NAME);
    }
}
