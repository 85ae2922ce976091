package io.shardflow.it.support;

import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.PortBinding;
import com.github.dockerjava.api.model.Ports;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.TopicSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The broker, registry and S3 server as containers (Testcontainers) on the images
 * scripts/build-images.sh builds from the same artifacts the local stack runs; the tag comes from
 * SHARDFLOW_IMAGE_TAG (default dev). Ports are published on 127.0.0.1 only, at free ports chosen
 * here, because Kafka must advertise the address the host reaches it at before it starts.
 */
public final class ContainerStack implements AutoCloseable {

    private static final String ACCESS_KEY = "shardflow";
    private static final String SECRET_KEY = "shardflow-secret";
    private static final String BUCKET = "shardflow";

    private final Network network;
    private final List<GenericContainer<?>> containers = new ArrayList<>();
    private final StackEndpoints endpoints;

    private ContainerStack(Network network, StackEndpoints endpoints) {
        this.network = network;
        this.endpoints = endpoints;
    }

    /** Whether a Docker engine answers; without one the container runs cannot happen here. */
    public static boolean engineAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    public static ContainerStack start() {
        Network network = Network.newNetwork();
        int kafkaPort = freePort();
        int registryPort = freePort();
        int s3Port = freePort();
        StackEndpoints endpoints = new StackEndpoints("127.0.0.1:" + kafkaPort,
                "http://127.0.0.1:" + registryPort + "/apis/registry/v3", "http://127.0.0.1:" + s3Port, ACCESS_KEY, SECRET_KEY, BUCKET, null, null);
        ContainerStack stack = new ContainerStack(network, endpoints);
        try {
            stack.add(container("kafka", network, kafkaPort, 19092)
                    .withEnv(Map.ofEntries(
                            Map.entry("CLUSTER_ID", "MkU3OEVBNTcwNTJENDM2Qk"),
                            Map.entry("KAFKA_NODE_ID", "1"),
                            Map.entry("KAFKA_PROCESS_ROLES", "broker,controller"),
                            Map.entry("KAFKA_LISTENERS", "PLAINTEXT://:9092,CONTROLLER://:9093,HOST://:19092"),
                            Map.entry("KAFKA_ADVERTISED_LISTENERS", "PLAINTEXT://kafka:9092,HOST://127.0.0.1:" + kafkaPort),
                            Map.entry("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,HOST:PLAINTEXT"),
                            Map.entry("KAFKA_CONTROLLER_LISTENER_NAMES", "CONTROLLER"),
                            Map.entry("KAFKA_INTER_BROKER_LISTENER_NAME", "PLAINTEXT"),
                            Map.entry("KAFKA_CONTROLLER_QUORUM_VOTERS", "1@kafka:9093"),
                            Map.entry("KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR", "1"),
                            Map.entry("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "5"),
                            Map.entry("KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR", "1"),
                            Map.entry("KAFKA_TRANSACTION_STATE_LOG_NUM_PARTITIONS", "5"),
                            Map.entry("KAFKA_TRANSACTION_STATE_LOG_MIN_ISR", "1"),
                            Map.entry("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0"),
                            Map.entry("KAFKA_HEAP_OPTS", "-Xmx768m")))
                    .waitingFor(Wait.forLogMessage(".*Kafka Server started.*", 1).withStartupTimeout(Duration.ofMinutes(3))));
            stack.add(container("apicurio-registry", network, registryPort, 8080)
                    .withNetworkAliases("registry")
                    .waitingFor(Wait.forLogMessage(".*RegistryStorage implementation.*", 1).withStartupTimeout(Duration.ofMinutes(3))));
            // The registry logs nothing once it listens: ask it, the way the compose healthcheck does.
            awaitHttpOk(URI.create(endpoints.registryUrl() + "/system/info"), Duration.ofMinutes(3));
            stack.add(container("minio", network, s3Port, 9000)
                    .withEnv(Map.of("MINIO_ROOT_USER", ACCESS_KEY, "MINIO_ROOT_PASSWORD", SECRET_KEY))
                    .withCommand("server", "/data", "--address", ":9000")
                    .waitingFor(Wait.forLogMessage(".*API: .*", 1).withStartupTimeout(Duration.ofMinutes(2))));
            stack.createTopics();
            S3ObjectStore.connect(endpoints.s3Settings()).ensureBucket();
            return stack;
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
    }

    private static GenericContainer<?> container(String image, Network network, int hostPort, int containerPort) {
        DockerImageName name = DockerImageName.parse("shardflow/" + image + ":" + System.getenv().getOrDefault("SHARDFLOW_IMAGE_TAG", "dev"));
        return new GenericContainer<>(name)
                .withNetwork(network)
                .withNetworkAliases(image)
                .withImagePullPolicy(imageName -> false) // built here; there is no registry to pull from
                .withCreateContainerCmdModifier(cmd -> cmd.withExposedPorts(ExposedPort.tcp(containerPort))
                        .getHostConfig().withPortBindings(new PortBinding(Ports.Binding.bindIpAndPort("127.0.0.1", hostPort),
                                ExposedPort.tcp(containerPort))));
    }

    private static void awaitHttpOk(URI uri, Duration timeout) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        Awaitility.await().atMost(timeout).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() ->
                http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() == 200);
    }

    private void add(GenericContainer<?> container) {
        containers.add(container);
        container.start();
    }

    private void createTopics() {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", endpoints.bootstrapServers()))) {
            admin.createTopics(TopicSpec.DEFAULTS.stream()
                    .map(t -> new NewTopic(t.name(), t.partitions(), (short) 1).configs(t.configs())).toList())
                    .all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot create the topics on the Kafka container", e);
        }
    }

    public StackEndpoints endpoints() {
        return endpoints;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        for (int i = containers.size() - 1; i >= 0; i--) {
            containers.get(i).stop();
        }
        network.close();
    }
}
