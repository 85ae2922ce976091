package io.shardflow.stack;

import io.minio.BucketExistsArgs;
import io.shardflow.app.RegistryConfig;
import io.shardflow.edge.SchemaRegistration;
import io.minio.MakeBucketArgs;
import io.minio.MinioClient;
import io.minio.http.HttpUtils;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the topics and the bucket once the servers answer. Both are idempotent, so starting a
 * stack again on an existing work dir keeps its data. Both retry: a broker that answers metadata
 * may not be unfenced yet, and MinIO may still be initialising its drive.
 */
final class StackResources {

    private static final Logger log = LoggerFactory.getLogger(StackResources.class);
    private static final Duration RETRY = Duration.ofMillis(300);

    private StackResources() {
    }

    /** Runs {@code work} with an admin client of the stack (its super user on a secure stack). */
    static void withAdmin(String bootstrapServers, Map<String, Object> clientSettings, Consumer<Admin> work) {
        try (Admin admin = admin(bootstrapServers, clientSettings)) {
            work.accept(admin);
        }
    }

    private static Admin admin(String bootstrapServers, Map<String, Object> clientSettings) {
        Properties props = new Properties();
        props.putAll(clientSettings);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "shardflow-stack-setup");
        return Admin.create(props);
    }

    static void createTopics(String bootstrapServers, Map<String, Object> clientSettings, List<TopicSpec> topics, Duration timeout) {
        if (topics.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = admin(bootstrapServers, clientSettings)) {
            List<TopicSpec> pending = topics;
            while (true) {
                List<NewTopic> requests = pending.stream()
                        .map(t -> new NewTopic(t.name(), t.partitions(), (short) 1).configs(t.configs()))
                        .collect(Collectors.toList());
                Map<String, KafkaFuture<Void>> results = admin.createTopics(requests).values();
                pending = pending.stream().filter(t -> !created(t, results.get(t.name()))).collect(Collectors.toList());
                if (pending.isEmpty()) {
                    log.info("Topics ready: {}", topics);
                    return;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new StackException("could not create topics " + pending + " within " + timeout.toSeconds()
                            + " s on " + bootstrapServers);
                }
                ServerProcess.sleep(RETRY);
            }
        }
    }

    /** True if created or already there; false if worth retrying; throws on anything else. */
    private static boolean created(TopicSpec topic, KafkaFuture<Void> result) {
        try {
            result.get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return true;
            }
            if (e.getCause() instanceof RetriableException) {
                log.debug("Retrying topic {}: {}", topic.name(), e.getCause().toString());
                return false;
            }
            throw new StackException("cannot create topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StackException("interrupted while creating topic " + topic.name(), e);
        }
    }

    /**
     * Registers the samples topic's schemas with {@code registrySettings} ({@code registry.auth.*},
     * {@code registry.tls.*}), retrying while the registry cannot yet reach the identity provider.
     */
    static void registerSchemas(String registryUrl, String topic, Map<String, Object> registrySettings, Duration timeout) {
        Map<String, Object> serde = RegistryConfig.serdeSettings(registrySettings, registryUrl);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                long contentId = SchemaRegistration.register(registryUrl, topic, serde);
                log.info("Schemas of topic {} registered at {} (content id {})", topic, registryUrl, contentId);
                return;
            } catch (RuntimeException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new StackException("could not register the schemas of " + topic + " at " + registryUrl + " within "
                            + timeout.toSeconds() + " s: " + e, e);
                }
                log.debug("Retrying schema registration: {}", e.toString());
                ServerProcess.sleep(RETRY.multipliedBy(10));
            }
        }
    }

    /** @param caFile the CA to trust when {@code endpoint} is https; null for plain HTTP */
    static void createBucket(String endpoint, String accessKey, String secretKey, Path caFile, String bucket, Duration timeout) {
        // Our own OkHttpClient so its threads can be shut down: minio-java's async calls leave
        // non-daemon dispatcher threads that would keep a CLI's JVM alive for a minute.
        OkHttpClient http = new OkHttpClient.Builder()
                .connectTimeout(Duration.ofSeconds(5))
                .readTimeout(Duration.ofSeconds(30))
                .build();
        if (caFile != null) {
            try {
                http = HttpUtils.enableExternalCertificates(http, caFile.toString());
            } catch (IOException | GeneralSecurityException e) {
                throw new StackException("cannot trust the CA in " + caFile, e);
            }
        }
        try {
            // region set: otherwise the client first asks the server for the bucket's location
            MinioClient client = MinioClient.builder().endpoint(endpoint).credentials(accessKey, secretKey)
                    .region("us-east-1").httpClient(http).build();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                try {
                    if (!client.bucketExists(BucketExistsArgs.builder().bucket(bucket).build())) {
                        client.makeBucket(MakeBucketArgs.builder().bucket(bucket).build());
                    }
                    log.info("Bucket ready: {} at {}", bucket, endpoint);
                    return;
                } catch (Exception e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new StackException("could not create bucket " + bucket + " on " + endpoint + " within "
                                + timeout.toSeconds() + " s: " + e, e);
                    }
                    log.debug("Retrying bucket {}: {}", bucket, e.toString());
                    ServerProcess.sleep(RETRY);
                }
            }
        } finally {
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
    }
}
