package io.shardflow.stack;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where scripts/fetch-tools.sh installed the servers, read from its {@code tools.properties}.
 * Every path is checked here, so a missing tool fails before any process is spawned, with a
 * message that says how to fix it.
 */
public final class ToolPaths {

    public static final String ENV_TOOLS_DIR = "SHARDFLOW_TOOLS";
    public static final String PROP_TOOLS_DIR = "shardflow.tools";
    static final String PROPERTIES_FILE = "tools.properties";
    private static final String FIX = "run scripts/fetch-tools.sh";
    /** Keycloak's launcher jar, relative to its home; the augmented server sits beside it in lib/quarkus. */
    static final String KEYCLOAK_LAUNCHER = "lib/quarkus-run.jar";
    /** Written by fetch-tools.sh once {@code kc.sh build} has finished. */
    static final String KEYCLOAK_BUILT_MARKER = ".shardflow-built";

    private final Path toolsDir;
    private final List<Path> kafkaClasspath;
    private final Path kafkaLog4jConfig;
    private final Path apicurioRunnerJar;
    private final Path s3proxyJar;
    private final Optional<Path> minioBinary;
    private final Optional<Path> keycloakHome;

    private ToolPaths(Path toolsDir, List<Path> kafkaClasspath, Path kafkaLog4jConfig, Path apicurioRunnerJar,
            Path s3proxyJar, Optional<Path> minioBinary, Optional<Path> keycloakHome) {
        this.toolsDir = toolsDir;
        this.kafkaClasspath = kafkaClasspath;
        this.kafkaLog4jConfig = kafkaLog4jConfig;
        this.apicurioRunnerJar = apicurioRunnerJar;
        this.s3proxyJar = s3proxyJar;
        this.minioBinary = minioBinary;
        this.keycloakHome = keycloakHome;
    }

    /** The tools dir from {@code -Dshardflow.tools}, then {@code $SHARDFLOW_TOOLS}, then the default. */
    public static Path defaultToolsDir() {
        String fromProperty = System.getProperty(PROP_TOOLS_DIR);
        if (fromProperty != null && !fromProperty.isBlank()) {
            return Path.of(fromProperty);
        }
        String fromEnv = System.getenv(ENV_TOOLS_DIR);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return Path.of(fromEnv);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "shardflow", "tools");
    }

    /** Loads {@code tools.properties} from {@code toolsDir}, or from the default dir when null. */
    public static ToolPaths load(Path toolsDir) {
        Path dir = (toolsDir == null ? defaultToolsDir() : toolsDir).toAbsolutePath().normalize();
        Path file = dir.resolve(PROPERTIES_FILE);
        if (!Files.isRegularFile(file)) {
            throw new StackException("no " + file + ": the local stack's servers are not installed; " + FIX
                    + " (or point " + ENV_TOOLS_DIR + " at the dir it installed into)");
        }
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            props.load(reader);
        } catch (IOException e) {
            throw new StackException("cannot read " + file + "; " + FIX, e);
        }
        Path classpathFile = existing(props, file, "kafka.classpath.file");
        List<Path> classpath = readClasspath(classpathFile);
        String minio = props.getProperty("minio.binary");
        Optional<Path> minioBinary = Optional.ofNullable(minio).filter(s -> !s.isBlank()).map(Path::of)
                .filter(Files::isExecutable);
        // Only a secure stack runs Keycloak: a tools dir from before it was fetched still serves a plain one.
        Optional<Path> keycloakHome = Optional.ofNullable(props.getProperty("keycloak.home")).filter(s -> !s.isBlank())
                .map(s -> Path.of(s.trim())).or(() -> builtKeycloak(dir)).filter(home -> Files.isRegularFile(home.resolve(KEYCLOAK_LAUNCHER)));
        return new ToolPaths(dir, classpath, existing(props, file, "kafka.log4j2.config"),
                existing(props, file, "apicurio.runner.jar"), existing(props, file, "s3proxy.jar"), minioBinary, keycloakHome);
    }

    /**
     * A Keycloak that fetch-tools.sh built in {@code dir} when tools.properties does not name one: that
     * file is rewritten whole by every run, and a run of an older checkout leaves the key out.
     */
    private static Optional<Path> builtKeycloak(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(p -> p.getFileName().toString().matches("keycloak-\\d+\\.\\d+\\.\\d+"))
                    .filter(p -> Files.exists(p.resolve(KEYCLOAK_BUILT_MARKER)))
                    .max(Comparator.comparing(ToolPaths::versionOf));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code keycloak-26.7.3} as a number that orders versions: 26 * 10^8 + 7 * 10^4 + 3. */
    private static long versionOf(Path home) {
        String[] parts = home.getFileName().toString().substring("keycloak-".length()).split("\\.");
        return Long.parseLong(parts[0]) * 100_000_000L + Long.parseLong(parts[1]) * 10_000L + Long.parseLong(parts[2]);
    }

    private static Path existing(Properties props, Path file, String key) {
        String value = props.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new StackException(file + " has no '" + key + "'; " + FIX + " again");
        }
        Path path = Path.of(value.trim());
        if (!Files.exists(path)) {
            throw new StackException(key + " = " + path + " does not exist; " + FIX + " again");
        }
        return path;
    }

    // The classpath points into the local Maven repository, which can be cleaned behind our back.
    private static List<Path> readClasspath(Path classpathFile) {
        String text;
        try {
            text = Files.readString(classpathFile).trim();
        } catch (IOException e) {
            throw new StackException("cannot read Kafka classpath " + classpathFile + "; " + FIX, e);
        }
        List<Path> jars = Arrays.stream(text.split(":")).filter(s -> !s.isBlank()).map(Path::of)
                .collect(Collectors.toUnmodifiableList());
        List<Path> missing = jars.stream().filter(p -> !Files.exists(p)).collect(Collectors.toList());
        if (jars.isEmpty() || !missing.isEmpty()) {
            throw new StackException("Kafka classpath " + classpathFile + " is empty or names missing jars "
                    + missing.stream().limit(3).collect(Collectors.toList()) + "; " + FIX + " again");
        }
        return jars;
    }

    public Path toolsDir() {
        return toolsDir;
    }

    /** The broker's runtime classpath, joined with ':' for {@code CLASSPATH}. */
    public String kafkaClasspath() {
        return kafkaClasspath.stream().map(Path::toString).collect(Collectors.joining(":"));
    }

    public Path kafkaLog4jConfig() {
        return kafkaLog4jConfig;
    }

    public Path apicurioRunnerJar() {
        return apicurioRunnerJar;
    }

    public Path s3proxyJar() {
        return s3proxyJar;
    }

    public Optional<Path> minioBinary() {
        return minioBinary;
    }

    /** The MinIO binary, or a clear error: fetch-tools.sh builds it unless run with --no-minio. */
    public Path requireMinio() {
        return minioBinary.orElseThrow(() -> new StackException("MinIO is not installed in " + toolsDir
                + "; " + FIX + " without --no-minio (it builds MinIO from source with Go)"));
    }

    /** Keycloak's home (the unpacked, prebuilt distribution), or a clear error: a secure stack needs it. */
    public Path requireKeycloak() {
        return keycloakHome.orElseThrow(() -> new StackException("Keycloak (the secure stack's OIDC server) is not installed in "
                + toolsDir + "; " + FIX + " again"));
    }
}
