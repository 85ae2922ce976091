package io.shardflow.app;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks that a topic keeps its records long enough for a reader that comes back to them later:
 * shard-sink reads a shard's samples from the samples topic only once the shard has sealed and it
 * gets to build it, so a topic that deletes them sooner loses data (docs/ARCHITECTURE.md § 1).
 * A principal without DESCRIBE_CONFIGS on the topic, or a topic not created yet, cannot be checked:
 * that is logged with the requirement, and the process starts.
 */
final class TopicRetention {

    private static final Logger LOG = LoggerFactory.getLogger(TopicRetention.class);

    private TopicRetention() {
    }

    /**
     * {@code retention.bytes} must be unlimited (-1): a size limit deletes records however young they
     * are, so no age can be promised (docs/ARCHITECTURE.md § 1).
     *
     * @param minimumAge {@code retention.ms} must be unlimited (-1) or at least this
     * @param setting    the setting naming the topic, for the message
     * @param why        what needs the records, for the message
     */
    static void require(Admin admin, String topic, Duration minimumAge, String setting, String why, Duration timeout) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config;
        try {
            Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(resource)).all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            config = configs.get(resource);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthorizationException || e.getCause() instanceof UnknownTopicOrPartitionException) {
                LOG.warn("cannot check the retention of topic '{}' ({}); it must keep records at least {} ms: {}", topic,
                        e.getCause().getMessage(), minimumAge.toMillis(), why);
                return;
            }
            throw new StartupException(setting, "cannot read the configs of topic '" + topic + "': " + StartupChecks.rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException(setting, "interrupted while reading the configs of topic '" + topic + "'");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new StartupException(setting, "no answer within " + timeout.toMillis() + " ms reading the configs of topic '" + topic + "'");
        }
        long retentionMs = value(config, TopicConfig.RETENTION_MS_CONFIG);
        if (retentionMs >= 0 && retentionMs < minimumAge.toMillis()) {
            throw new StartupException(setting, String.format("topic '%s' has %s=%d, shorter than the %d ms needed: %s; raise the "
                    + "topic's %s", topic, TopicConfig.RETENTION_MS_CONFIG, retentionMs, minimumAge.toMillis(), why,
                    TopicConfig.RETENTION_MS_CONFIG));
        }
        long retentionBytes = value(config, TopicConfig.RETENTION_BYTES_CONFIG);
        if (retentionBytes >= 0) {
            throw new StartupException(setting, String.format("topic '%s' has %s=%d, which deletes records however young: %s; set the "
                    + "topic's %s to -1 and bound it by %s", topic, TopicConfig.RETENTION_BYTES_CONFIG, retentionBytes, why,
                    TopicConfig.RETENTION_BYTES_CONFIG, TopicConfig.RETENTION_MS_CONFIG));
        }
        LOG.info("topic '{}' keeps records {} (at least {} ms needed)", topic,
                retentionMs < 0 ? "without a time limit" : retentionMs + " ms", minimumAge.toMillis());
    }

    /** A config's value; -1 (unlimited) when the broker does not report it. */
    private static long value(Config config, String name) {
        var entry = config == null ? null : config.get(name);
        return entry == null || entry.value() == null ? -1 : Long.parseLong(entry.value());
    }
}
