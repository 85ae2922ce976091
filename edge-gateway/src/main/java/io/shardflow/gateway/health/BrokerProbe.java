package io.shardflow.gateway.health;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Asks the cluster for its id, as the gateway's producer connects (same security settings): one
 * small request on a connection kept open, and only when no record was acknowledged for a while.
 */
public final class BrokerProbe implements DependencyProbe, AutoCloseable {

    private final Admin admin;
    private final Duration timeout;

    public BrokerProbe(String bootstrapServers, Map<String, Object> clientSettings, Duration timeout) {
        Map<String, Object> props = new HashMap<>(clientSettings);
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "edge-gateway-readiness");
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        // apicurio.* and other producer-only keys of a shared client file are not the admin's
        props.keySet().removeIf(key -> key.startsWith("apicurio."));
        this.admin = Admin.create(props);
        this.timeout = timeout;
    }

    @Override
    public void check() throws Exception {
        admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis())).clusterId()
                .get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
