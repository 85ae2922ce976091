package io.shardflow.cli.doctor;

import io.shardflow.stack.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The broker as the pipeline needs it: it answers (and accepts our credentials), the pipeline's
 * topics exist, the samples topic takes every sample ingest-app would accept, and its timestamps
 * come from the broker, so the dedupe window does not follow device clocks.
 */
public final class KafkaDoctor {

    private final Map<String, Object> clientSettings;
    private final Duration timeout;

    /** {@code clientSettings}: bootstrap.servers and any security settings of a Kafka client. */
    public KafkaDoctor(Map<String, Object> clientSettings, Duration timeout) {
        this.clientSettings = clientSettings;
        this.timeout = timeout;
    }

    public List<Finding> check(TopicSpec samples, List<TopicSpec> others, long sampleMaxBytes) {
        List<Finding> findings = new ArrayList<>();
        Object bootstrap = clientSettings.get(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG);
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (Admin admin = Admin.create(settings)) {
            int brokers = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS).size();
            findings.add(Finding.ok("kafka", bootstrap + " answers (" + brokers + " broker" + (brokers == 1 ? "" : "s") + ")"));
            Optional<Finding> samplesMissing = topic(admin, samples);
            if (samplesMissing.isPresent()) {
                findings.add(samplesMissing.get());
            } else {
                findings.addAll(samplesSettings(admin, samples.name(), sampleMaxBytes));
            }
            for (TopicSpec other : others) {
                findings.add(topic(admin, other).orElse(Finding.ok("kafka.topic." + other.name(), "exists")));
            }
        } catch (ExecutionException | TimeoutException e) {
            findings.add(unreachable(bootstrap, e instanceof ExecutionException ? e.getCause() : e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            findings.add(unreachable(bootstrap, e));
        } catch (RuntimeException e) {
            findings.add(Finding.fail("kafka", "cannot create a client for " + bootstrap + ": " + Finding.messageOf(e),
                    "check --bootstrap / SHARDFLOW_BOOTSTRAP_SERVERS and the client settings"));
        }
        return findings;
    }

    private static Finding unreachable(Object bootstrap, Throwable e) {
        if (e instanceof AuthenticationException) {
            return Finding.fail("kafka", "the broker at " + bootstrap + " refused our credentials: " + e.getMessage(),
                    "check the SASL/TLS settings of the Kafka client configuration");
        }
        return Finding.fail("kafka", "no answer from " + bootstrap + ": " + Finding.messageOf(e),
                "start the broker ('bin/shardflow stack up') or point --bootstrap / SHARDFLOW_BOOTSTRAP_SERVERS at it");
    }

    /** Empty when the topic exists and can be described; a failing finding otherwise. */
    private Optional<Finding> topic(Admin admin, TopicSpec topic) throws InterruptedException {
        String check = "kafka.topic." + topic.name();
        try {
            TopicDescription description = admin.describeTopics(List.of(topic.name())).allTopicNames()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(topic.name());
            return description.partitions().isEmpty()
                    ? Optional.of(Finding.fail(check, "has no partitions", "recreate it")) : Optional.empty();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                StringBuilder create = new StringBuilder("create it: kafka-topics.sh --create --topic ").append(topic.name())
                        .append(" --partitions ").append(topic.partitions());
                new TreeMap<>(topic.configs()).forEach((key, value) ->
                        create.append(" --config ").append(key).append('=').append(value));
                return Optional.of(Finding.fail(check, "does not exist", create.toString()));
            }
            if (e.getCause() instanceof AuthorizationException) {
                return Optional.of(Finding.fail(check, "we may not describe it: " + e.getCause().getMessage(),
                        "grant DESCRIBE on the topic to this principal"));
            }
            return Optional.of(Finding.fail(check, "cannot be described: " + Finding.messageOf(e.getCause()), "check the broker's log"));
        } catch (TimeoutException e) {
            return Optional.of(Finding.fail(check, "no answer within " + timeout.toSeconds() + " s", "check the broker"));
        }
    }

    /** Two findings: the size limit against sample.max.bytes, and where the timestamps come from. */
    private List<Finding> samplesSettings(Admin admin, String topic, long sampleMaxBytes) {
        String check = "kafka.topic." + topic;
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            Config config = admin.describeConfigs(List.of(resource)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS).get(resource);
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .get(topic).partitions().size();
            long maxMessageBytes = Long.parseLong(config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value());
            String timestampType = config.get(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG).value();
            String size = partitions + " partitions, max.message.bytes=" + maxMessageBytes;
            Finding sizeFinding = maxMessageBytes < sampleMaxBytes
                    ? Finding.warn(check, size + ": samples between " + maxMessageBytes + " and sample.max.bytes=" + sampleMaxBytes
                                    + " bytes are refused by the broker instead of dead-lettered with a reason",
                            "kafka-configs.sh --alter --entity-type topics --entity-name " + topic + " --add-config max.message.bytes="
                                    + sampleMaxBytes + " (or lower sample.max.bytes to " + maxMessageBytes + ")")
                    : Finding.ok(check, size + " (>= sample.max.bytes=" + sampleMaxBytes + ")");
            String timestamps = "message.timestamp.type=" + timestampType;
            Finding timeFinding = "LogAppendTime".equals(timestampType)
                    ? Finding.ok(check + ".timestamps", timestamps + ": the dedupe window runs on broker time")
                    : Finding.warn(check + ".timestamps", timestamps + ": the dedupe window follows device clocks, which may be wrong",
                            "kafka-configs.sh --alter --entity-type topics --entity-name " + topic
                                    + " --add-config message.timestamp.type=LogAppendTime");
            return List.of(sizeFinding, timeFinding);
        } catch (ExecutionException e) {
            return List.of(Finding.fail(check, "cannot read its settings: " + Finding.messageOf(e.getCause()),
                    "grant DESCRIBE_CONFIGS on the topic to this principal"));
        } catch (TimeoutException e) {
            return List.of(Finding.fail(check, "no answer within " + timeout.toSeconds() + " s", "check the broker"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(Finding.fail(check, "interrupted", "run doctor again"));
        }
    }
}
