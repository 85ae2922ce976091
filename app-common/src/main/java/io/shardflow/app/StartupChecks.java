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
import org.apache.kafka.common.config.AbstractConfig;

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
     * Asks the registry as the serde will, with the {@code registry.auth.*} and {@code registry.tls.*}
     * settings of {@code config}: the token (OAuth2) or the password (basic) is got and sent as the
     * serde would, and the answer to a read the process needs must be 200. A 401 or 403 stops the
     * process naming the key to fix ({@link RegistryAuthorization.Mode#keyFor}).
     */
    public void registry(String registryUrl, AbstractConfig config, String settingName) {
        Optional<SSLContext> tls = RegistryConfig.sslContext(config);
        registry(registryUrl, tls, RegistryAuthorization.header(config, tls, timeout), RegistryAuthorization.mode(config), settingName);
    }

    /**
     * Asks the registry as the serde will: through {@code tls} when it has a private CA, with the
     * basic {@code authorization} when one is configured (its value never appears in a message).
     */
    public void registry(String registryUrl, Optional<SSLContext> tls, Optional<String> authorization, String settingName) {
        registry(registryUrl, tls, authorization, authorization.isPresent() ? RegistryAuthorization.Mode.BASIC
                : RegistryAuthorization.Mode.NONE, settingName);
    }

    private void registry(String registryUrl, Optional<SSLContext> tls, Optional<String> authorization,
                          RegistryAuthorization.Mode mode, String settingName) {
        HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(timeout);
        tls.ifPresent(builder::sslContext);
        HttpClient client = builder.build();
        try {
            // /system/info: reachable at all (it answers without credentials); then a read the serde needs
            // (listing one artifact), which an authenticating registry allows only a principal with a role
            for (String path : new String[] {"/system/info", "/search/artifacts?limit=1"}) {
                HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registryUrl + path)).timeout(timeout).GET();
                authorization.ifPresent(value -> request.header("Authorization", value));
                HttpResponse<Void> response = client.send(request.build(), HttpResponse.BodyHandlers.discarding());
                int status = response.statusCode();
                if (status == 401 || status == 403) {
                    String key = mode.keyFor(status);
                    throw new StartupException(key, "schema registry at " + registryUrl + (status == 401
                            ? " refused our credentials (HTTP 401)" : " refused our principal (HTTP 403: no registry role)")
                            + "; check " + key + " and the other registry.auth.* settings");
                }
                if (status != 200) {
                    throw new StartupException(settingName, "schema registry at " + registryUrl + " answered HTTP " + status + " to " + path);
                }
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
