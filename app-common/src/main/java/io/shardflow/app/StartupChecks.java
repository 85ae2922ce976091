package io.shardflow.app;

import io.shardflow.dataset.store.ObjectStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Fails fast, before any work starts, when a dependency named in the config cannot be reached, with
 * one line naming the setting to fix. Without this a wrong endpoint shows up minutes later as a
 * stream of retries.
 */
public final class StartupChecks {

    private final Duration timeout;

    public StartupChecks(Duration timeout) {
        this.timeout = timeout;
    }

    /**
     * Connects as the process's own Kafka clients will: {@code clientSettings} carries the security
     * settings (see {@link KafkaClientConfig}), so a SASL or mTLS cluster is probed as it is used.
     * An authentication failure is reported as such, never with the settings' values.
     */
    public void kafka(String bootstrapServers, Map<String, Object> clientSettings, String settingName) {
        try (Admin admin = admin(bootstrapServers, clientSettings)) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .clusterId().get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new StartupException(settingName, "cannot reach Kafka at " + bootstrapServers + ": " + rootMessage(e));
        }
    }

    /**
     * Stops the process when {@code topic} may delete records sooner than {@code minimumAge}: its
     * {@code retention.ms} is shorter, or it has a {@code retention.bytes}. A reader that comes back
     * to them later (see {@code why}) would find them gone.
     */
    public void topicRetention(String bootstrapServers, Map<String, Object> clientSettings, String topic, Duration minimumAge,
                               String topicSetting, String why) {
        try (Admin admin = admin(bootstrapServers, clientSettings)) {
            TopicRetention.require(admin, topic, minimumAge, topicSetting, why, timeout);
        }
    }

    private Admin admin(String bootstrapServers, Map<String, Object> clientSettings) {
        Map<String, Object> props = new HashMap<>(clientSettings);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        return Admin.create(props);
    }

    /** Lists the datasets prefix: proves endpoint, credentials and bucket in one request. */
    public void objectStore(ObjectStore store, String endpoint, String endpointSetting, String bucketSetting) {
        try {
            store.listPrefixes("datasets/");
        } catch (RuntimeException e) {
            String message = rootMessage(e);
            String setting = message.contains("NoSuchBucket") || message.contains("bucket does not exist")
                    ? bucketSetting : endpointSetting;
            throw new StartupException(setting, "cannot use the object store at " + endpoint + ": " + message);
        }
    }

    public void registry(String registryUrl, String settingName) {
        registry(registryUrl, Optional.empty(), Optional.empty(), settingName);
    }

    /**
     * Asks the registry as the serde will: through {@code tls} when it has a private CA, with the
     * basic {@code authorization} when one is configured (its value never appears in a message).
     */
    public void registry(String registryUrl, Optional<SSLContext> tls, Optional<String> authorization, String settingName) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        tls.ifPresent(builder::sslContext);
        HttpClient client = builder.build();
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registryUrl + "/system/info")).timeout(timeout).GET();
            authorization.ifPresent(value -> request.header("Authorization", value));
            HttpResponse<Void> response = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
            if (response.statusCode() == 401 || response.statusCode() == 403) {
                throw new StartupException(RegistryConfig.AUTH_USERNAME, "schema registry at " + registryUrl
                        + " refused our credentials (HTTP " + response.statusCode() + "); check the registry.auth.* settings");
            }
            if (response.statusCode() != 200) {
                throw new StartupException(settingName, "schema registry at " + registryUrl + " answered HTTP " + response.statusCode());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException(settingName, "interrupted while reaching the schema registry");
        } catch (StartupException e) {
            throw e;
        } catch (Exception e) {
            throw new StartupException(settingName, "cannot reach the schema registry at " + registryUrl + ": " + rootMessage(e));
        }
    }

    static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }
}
