package io.shardflow.cli;

import io.shardflow.console.ConsoleServer;
import io.shardflow.console.ConsoleSettings;
import io.shardflow.console.ConsoleSettings.Credentials;
import io.shardflow.console.ConsoleSettings.KafkaSettings;
import io.shardflow.dataset.store.S3ObjectStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code shardflow ui}: the read-only web console on this machine (docs/ARCHITECTURE.md § 8). */
@Command(name = "ui", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Serve the read-only web console: datasets, snapshots and their growth, diffs, shards, samples with",
                "pictures, dead letters decoded against the registry, quarantined shards, the pipeline's health and lag.",
                "Loopback only unless credentials are given (SHARDFLOW_CONSOLE_TOKEN_FILE, SHARDFLOW_CONSOLE_TOKEN or",
                "SHARDFLOW_CONSOLE_BASIC_AUTH_FILE with user:password); secrets never come from arguments."},
        footerHeading = "%nExamples:%n",
        footer = {"  bin/shardflow ui                                   # http://127.0.0.1:8080/ on the local stack",
                "  bin/shardflow ui --port 9090 --service ingest=http://127.0.0.1:9404 --service sink=http://127.0.0.1:9405",
                "  SHARDFLOW_CONSOLE_TOKEN_FILE=/run/secrets/console-token bin/shardflow ui --bind 0.0.0.0"})
final class UiCommand implements Callable<Integer> {

    @Mixin
    Endpoints endpoints;
    @Option(names = "--port", defaultValue = "${env:SHARDFLOW_CONSOLE_PORT:-8080}",
            description = "port to listen on; 0 picks a free one (env SHARDFLOW_CONSOLE_PORT, default: ${DEFAULT-VALUE})")
    int port;
    @Option(names = "--bind", defaultValue = "${env:SHARDFLOW_CONSOLE_BIND:-127.0.0.1}",
            description = "address to listen on; anything but loopback requires credentials (env SHARDFLOW_CONSOLE_BIND, default: ${DEFAULT-VALUE})")
    String bind;
    @Option(names = "--cache-dir", defaultValue = "${env:SHARDFLOW_CONSOLE_CACHE_DIR:-${sys:user.home}/.cache/shardflow/console}",
            description = "verified shard files and per-shard statistics, kept between runs (env SHARDFLOW_CONSOLE_CACHE_DIR, default: ${DEFAULT-VALUE})")
    Path cacheDir;
    @Option(names = "--cache-mib", defaultValue = "4096", description = "most MiB of shard files kept in the cache (default: ${DEFAULT-VALUE})")
    long cacheMib;
    @Option(names = "--service", paramLabel = "NAME=URL",
            description = "a service's metrics endpoint for the operations page, e.g. ingest=http://127.0.0.1:9404 (repeatable; "
                    + "env SHARDFLOW_CONSOLE_SERVICES, comma-separated)")
    List<String> services;
    @Option(names = "--token-file", description = "file holding the bearer token (or basic-auth password) every request must carry "
            + "(env SHARDFLOW_CONSOLE_TOKEN_FILE; or the token itself in SHARDFLOW_CONSOLE_TOKEN)")
    Path tokenFile;
    @Option(names = "--basic-auth-file", description = "file holding user:password for HTTP basic auth (env SHARDFLOW_CONSOLE_BASIC_AUTH_FILE)")
    Path basicAuthFile;
    @Option(names = "--dlq-topic", defaultValue = "samples-dlq", description = "dead-letter topic (default: ${DEFAULT-VALUE})")
    String dlqTopic;
    @Option(names = "--no-kafka", description = "do not connect to Kafka: no dead letters, lag or seal reasons")
    boolean noKafka;
    @Spec
    picocli.CommandLine.Model.CommandSpec command;

    private final Map<String, String> env = System.getenv();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = command.commandLine().getOut();
        ConsoleSettings settings = new ConsoleSettings(bind, port, credentials(), cacheDir, cacheMib << 20, kafka(out),
                optional(endpoints::registryUrl), services());
        S3ObjectStore store = S3ObjectStore.connect(endpoints.s3());
        Map<String, Object> serde = settings.registryUrl() == null ? null : endpoints.registrySerdeSettings(settings.registryUrl());
        CountDownLatch stopped = new CountDownLatch(1);
        try (ConsoleServer server = ConsoleServer.start(settings, store, serde, Clock.systemUTC())) {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                server.close();
                stopped.countDown();
            }, "console-stop"));
            String host = bind.contains(":") ? "[" + bind + "]" : bind;
            out.printf("shardflow console: http://%s:%d/ (read-only; Ctrl-C stops it)%n", host, server.port());
            if (settings.registryUrl() == null) {
                out.println("  no registry configured: dead letters are shown undecoded");
            }
            out.flush();
            stopped.await();
        }
        return 0;
    }

    private Optional<KafkaSettings> kafka(PrintWriter out) {
        if (noKafka) {
            return Optional.empty();
        }
        String bootstrap = optional(endpoints::bootstrapServers);
        if (bootstrap == null) {
            out.println("  no Kafka configured: the dead-letter, lag and seal-reason views are off");
            return Optional.empty();
        }
        KafkaSettings defaults = KafkaSettings.defaults(bootstrap, endpoints.kafkaClientSettings());
        return Optional.of(new KafkaSettings(defaults.bootstrapServers(), defaults.clientSettings(), defaults.samplesTopic(), dlqTopic,
                defaults.assignmentsTopic(), defaults.ingestGroup(), defaults.sinkGroup()));
    }

    private static String optional(java.util.function.Supplier<String> value) {
        try {
            return value.get();
        } catch (IllegalArgumentException e) {
            return null; // not configured: that view is off, the console still starts
        }
    }

    Optional<Credentials> credentials() {
        Path token = tokenFile != null ? tokenFile : pathFromEnv("SHARDFLOW_CONSOLE_TOKEN_FILE");
        Path basic = basicAuthFile != null ? basicAuthFile : pathFromEnv("SHARDFLOW_CONSOLE_BASIC_AUTH_FILE");
        if (token != null && basic != null) {
            throw new IllegalArgumentException("give either a token or basic-auth credentials, not both");
        }
        if (token != null) {
            return Optional.of(Credentials.token(read(token)));
        }
        String tokenFromEnv = env.get("SHARDFLOW_CONSOLE_TOKEN");
        if (tokenFromEnv != null && !tokenFromEnv.isBlank()) {
            return Optional.of(Credentials.token(tokenFromEnv.strip()));
        }
        if (basic != null) {
            String pair = read(basic);
            int colon = pair.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("the basic-auth file " + basic + " must hold user:password on one line");
            }
            return Optional.of(new Credentials(pair.substring(0, colon), pair.substring(colon + 1)));
        }
        return Optional.empty();
    }

    private Path pathFromEnv(String name) {
        String value = env.get(name);
        return value == null || value.isBlank() ? null : Path.of(value);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the credentials file " + file + ": " + e.getMessage());
        }
    }

    private Map<String, URI> services() {
        List<String> all = new java.util.ArrayList<>(services == null ? List.of() : services);
        String fromEnv = env.get("SHARDFLOW_CONSOLE_SERVICES");
        if (all.isEmpty() && fromEnv != null && !fromEnv.isBlank()) {
            all.addAll(List.of(fromEnv.split(",")));
        }
        Map<String, URI> out = new LinkedHashMap<>();
        for (String item : all) {
            int eq = item.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("--service takes NAME=URL, e.g. ingest=http://127.0.0.1:9404, got '" + item + "'");
            }
            URI uri = URI.create(item.substring(eq + 1).strip());
            if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
                throw new IllegalArgumentException("--service " + item + ": the URL must be http or https");
            }
            out.put(item.substring(0, eq).strip(), uri);
        }
        return out;
    }
}
