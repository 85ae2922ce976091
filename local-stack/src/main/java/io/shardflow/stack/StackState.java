package io.shardflow.stack;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * {@code <workDir>/stack.json}: what a different process needs to find, probe and stop a running
 * stack (the CLI's {@code status} and {@code down}), and to reuse its ports on the next {@code up}.
 *
 * @param formatVersion bumped when a field changes meaning; readers reject newer versions
 * @param workDir       absolute; also the marker looked for in /proc/PID/cmdline
 * @param ports         all ports, reused by the next start in the same work dir
 * @param servers       per role: pid of the last start, named ports, log file
 * @param mtlsBootstrapServers the SSL listener that requires client certificates; null on a plain stack
 * @param clientConfigDir      a secure stack's client properties files, one pair per
 *                             {@link StackPrincipal}; null on a plain stack
 * @param caCertificate        PEM of the CA a secure stack's broker, MinIO, registry and identity
 *                             provider certificates come from; null on a plain stack
 * @param issuer               the identity provider's issuer URL (the token endpoint is under it); null
 *                             on a plain stack
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StackState(
        int formatVersion,
        String workDir,
        S3Kind s3Kind,
        boolean detached,
        String bucket,
        String bootstrapServers,
        String registryUrl,
        String s3Endpoint,
        String s3AccessKey,
        String s3SecretKey,
        StackPorts ports,
        Map<Role, ServerState> servers,
        String mtlsBootstrapServers,
        String clientConfigDir,
        String caCertificate,
        String issuer) {

    public static final String FILE_NAME = "stack.json";
    static final int FORMAT_VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** One server as last started. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ServerState(long pid, Map<String, Integer> ports, String logFile) {
        public ServerState {
            ports = Map.copyOf(ports);
        }
    }

    public StackState {
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(s3Kind, "s3Kind");
        Objects.requireNonNull(ports, "ports");
        // EnumMap: role order in the JSON, whatever map the caller passed
        servers = servers.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(servers));
    }

    /** The state recorded in {@code workDir}, if a stack was ever started there. */
    public static Optional<StackState> read(Path workDir) {
        Path file = workDir.toAbsolutePath().normalize().resolve(FILE_NAME);
        StackState state;
        try {
            state = JSON.readValue(Files.readString(file), StackState.class);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new StackException("cannot read stack state " + file + ": " + e.getMessage(), e);
        }
        if (state.formatVersion() > FORMAT_VERSION) {
            throw new StackException(file + " has format version " + state.formatVersion()
                    + ", newer than this build understands (" + FORMAT_VERSION + ")");
        }
        return Optional.of(state);
    }

    public boolean secure() {
        return clientConfigDir != null;
    }

    /** The servers this stack runs (the identity provider only in a secure one). */
    public List<Role> roles() {
        return Role.of(secure());
    }

    /** Never prints the S3 secret key. */
    @Override
    public String toString() {
        return "StackState[workDir=" + workDir + ", kafka=" + bootstrapServers + ", registry=" + registryUrl + ", s3="
                + s3Endpoint + ", secure=" + secure() + ", servers=" + servers + "]";
    }

    /** Owner-only (it holds the S3 secret key), written whole and renamed, so a reader never sees half a file. */
    void write() {
        Path file = Path.of(workDir).resolve(FILE_NAME);
        try {
            OwnerOnlyFiles.write(file, JSON.writeValueAsBytes(this));
        } catch (IOException | java.io.UncheckedIOException e) {
            throw new StackException("cannot write stack state " + file + ": " + e.getMessage(), e);
        }
    }
}
