package io.shardflow.it.support;

import io.shardflow.stack.LocalStack;
import io.shardflow.stack.Role;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One secure stack (broker with SASL_SSL and mTLS, MinIO over TLS, Keycloak, the registry behind
 * OIDC) for every secure test class of a run: {@code @ExtendWith(SecureStackExtension.class)} and a
 * {@link LocalStack} parameter. The identity provider is the slowest server to start (its start-up
 * figures: docs/operating/security.md), so it starts once and is stopped when the run ends. Its start
 * time and memory are printed for the record.
 */
public final class SecureStackExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(SecureStackExtension.class);
    private static final Pattern KEYCLOAK_STARTED = Pattern.compile("Keycloak \\S+ on JVM .* started in ([0-9.]+)s");

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalStack.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Running.class, key -> Running.start(), Running.class).stack;
    }

    /** The stack and its work dir, closed by JUnit when the run's root context closes. */
    private record Running(LocalStack stack, Path work) implements ExtensionContext.Store.CloseableResource {

        static Running start() {
            try {
                Path work = Files.createTempDirectory("shardflow-secure-it-");
                long startNanos = System.nanoTime();
                LocalStack stack = LocalStack.start(StackConfig.defaults(work.resolve("stack")).withSecure(true).withS3Kind(S3Kind.MINIO));
                System.out.printf("secure stack up in %.1f s; %s%n", (System.nanoTime() - startNanos) / 1e9, idpFigures(stack));
                return new Running(stack, work);
            } catch (IOException e) {
                throw new IllegalStateException("cannot make a work dir", e);
            }
        }

        /** Keycloak's own start time (its log) and its resident memory now and at peak (/proc). */
        private static String idpFigures(LocalStack stack) throws IOException {
            Matcher started = KEYCLOAK_STARTED.matcher(Files.readString(stack.logFile(Role.IDP)));
            String seconds = started.find() ? started.group(1) + " s" : "(not in its log)";
            String status = Files.readString(Path.of("/proc", Long.toString(stack.pid(Role.IDP)), "status"));
            return "Keycloak started in " + seconds + ", " + memory(status, "VmRSS") + " resident (peak " + memory(status, "VmHWM")
                    + ")";
        }

        private static String memory(String procStatus, String field) {
            Matcher kb = Pattern.compile(field + ":\\s+(\\d+) kB").matcher(procStatus);
            return kb.find() ? Long.parseLong(kb.group(1)) / 1024 + " MiB" : "?";
        }

        @Override
        public void close() throws IOException {
            stack.close();
            try (Stream<Path> paths = Files.walk(work)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
