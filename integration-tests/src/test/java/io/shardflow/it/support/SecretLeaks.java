package io.shardflow.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.app.KafkaClientConfig;
import io.shardflow.stack.IdentityClient;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.StackEndpoints;
import io.shardflow.stack.StackPrincipal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Where a secure stack's secrets must never be: a log, a command line, a file other users can read.
 * The secrets are gathered twice, from what the stack says it made and from the files its clients
 * use (SCRAM and key-store passwords, OIDC client secrets), so a secret the stack forgot to list is
 * still looked for.
 */
public final class SecretLeaks {

    /** Files this large (Kafka segments, shards) are sample data, not settings: not searched. */
    private static final long LARGEST_SEARCHED = 8L << 20;

    private final List<String> secrets;

    private SecretLeaks(List<String> secrets) {
        this.secrets = secrets;
    }

    public static SecretLeaks of(LocalStack stack) {
        Set<String> secrets = new LinkedHashSet<>(stack.secretValues());
        Path clients = stack.clientConfigDir().orElseThrow();
        StackEndpoints endpoints = StackEndpoints.of(stack);
        for (StackPrincipal principal : StackPrincipal.values()) {
            String jaas = KafkaClientConfig.load(principal.scramClientConfig(clients).toString()).get("sasl.jaas.config").toString();
            secrets.add(jaas.substring(jaas.indexOf("password=\"") + 10, jaas.lastIndexOf('"')));
            secrets.add(KafkaClientConfig.load(principal.mtlsClientConfig(clients).toString()).get("ssl.keystore.password").toString());
        }
        for (IdentityClient client : IdentityClient.values()) {
            secrets.add(endpoints.registrySettings(client).get("registry.auth.client.secret"));
        }
        secrets.add(stack.identityProvider().orElseThrow().adminPassword());
        assertThat(secrets).allSatisfy(secret -> assertThat(secret).hasSizeGreaterThanOrEqualTo(8));
        return new SecretLeaks(List.copyOf(secrets));
    }

    public List<String> secrets() {
        return secrets;
    }

    /** The servers' and the given services' logs and command lines hold no secret. */
    public void assertNoneIn(LocalStack stack, List<Path> serviceLogs, List<Long> servicePids) throws IOException {
        List<Path> logs = new ArrayList<>(serviceLogs);
        List<Long> pids = new ArrayList<>(servicePids);
        for (Role role : Role.values()) {
            logs.add(stack.logFile(role));
            pids.add(stack.pid(role));
        }
        for (Path log : logs) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(text).as("log %s", log).isNotEmpty();
            assertAbsent(text, "log " + log);
        }
        for (long pid : pids) {
            String commandLine = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
            assertThat(commandLine).as("pid %d", pid).isNotBlank();
            assertAbsent(commandLine, "command line of pid " + pid);
        }
    }

    /**
     * No file under {@code root} that another user could read (readable by others, in directories
     * they may enter) holds a secret; returns how many such files were searched.
     */
    public int assertNoWorldReadableFileHoldsOne(Path root) throws IOException {
        int searched = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                if (othersCanRead(root, file) && Files.size(file) <= LARGEST_SEARCHED) {
                    assertAbsent(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1), "world-readable file " + file);
                    searched++;
                }
            }
        }
        return searched;
    }

    private static boolean othersCanRead(Path root, Path file) throws IOException {
        if (!Files.getPosixFilePermissions(file).contains(PosixFilePermission.OTHERS_READ)) {
            return false;
        }
        for (Path dir = file.getParent(); dir != null && dir.startsWith(root); dir = dir.getParent()) {
            if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                return false;
            }
        }
        return true;
    }

    private void assertAbsent(String text, String where) {
        for (String secret : secrets) {
            // the secret's position, never the secret, in the failure message
            assertThat(text.contains(secret)).as("%s holds secret #%d", where, secrets.indexOf(secret)).isFalse();
        }
    }
}
