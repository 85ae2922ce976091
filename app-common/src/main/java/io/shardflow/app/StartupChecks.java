package io.shardflow.app;

import io.shardflow.dataset.store.ObjectStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
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

    public void kafka(String bootstrapServers, String settingName) {
        Map<String, Object> props = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        try (Admin admin = Admin.create(props)) {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .clusterId().get(timeout.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new StartupException(settingName, "cannot reach Kafka at " + bootstrapServers + ": " + rootMessage(e));
        }
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
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        try {
            HttpResponse<Void> response = client.send(HttpRequest.newBuilder(URI.create(registryUrl + "/system/info"))
                    .timeout(timeout).GET().build(), HttpResponse.BodyHandlers.discarding());
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
