package io.shardflow.cli;

import io.shardflow.app.ConfigFiles;
import io.shardflow.app.KafkaClientConfig;
import io.shardflow.app.RegistryConfig;
import io.shardflow.edge.SchemaRegistration;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code shardflow schemas register}: what an operator or a CI job runs before producers roll out on a
 * registry where devices may only read (docs/ARCHITECTURE.md § 6): the samples topic's schemas, registered
 * exactly as edge-client's serializer registers them when it may.
 */
@Command(name = "schemas", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "The samples topic's schemas in the registry.", subcommands = SchemasCommand.Register.class)
final class SchemasCommand {

    @Command(name = "register", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = {"Register the samples topic's schemas (DType, Tensor and <topic>-value, the Sample) as edge-client's",
                    "serializer would, with a principal allowed to write (registry role sr-admin or sr-developer). Registering",
                    "again changes nothing. Devices with auto-register off then use the latest <topic>-value."},
            footerHeading = "%nExamples:%n",
            footer = {"  bin/shardflow schemas register --registry-config .stack/secure/clients/shardflow-admin-registry.properties"})
    static final class Register implements Callable<Integer> {
        @Mixin
        Endpoints endpoints;
        @Spec
        picocli.CommandLine.Model.CommandSpec command;

        @Option(names = "--registry-config", description = "properties file of registry.auth.* (basic, or OAuth2 client "
                + "credentials) and registry.tls.* settings (env SHARDFLOW_REGISTRY_CONFIG; else SHARDFLOW_REGISTRY_AUTH_* and "
                + "SHARDFLOW_REGISTRY_TLS_* variables)")
        Path registryConfig;
        @Option(names = "--topic", defaultValue = "samples", description = "the topic whose value schemas to register (default: ${DEFAULT-VALUE})")
        String topic;

        @Override
        public Integer call() {
            String url = endpoints.registryUrl();
            Map<String, Object> serde = RegistryConfig.serdeSettings(registrySettings(), url);
            long contentId;
            try {
                contentId = SchemaRegistration.register(url, topic, serde);
            } catch (RuntimeException e) {
                // the registry client's own exceptions often carry no message: say what was refused, and by whom
                throw new IllegalStateException("cannot register the schemas of " + topic + " at " + url + " (a principal "
                        + "with a registry role that may write, e.g. sr-admin, is needed): " + describe(e), e);
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("registry", url);
            result.put("artifact", topic + "-value");
            result.put("contentId", contentId);
            PrintWriter out = command.commandLine().getOut();
            out.println(JsonOutput.write(result));
            return 0;
        }

        private static String describe(Throwable e) {
            StringBuilder text = new StringBuilder();
            for (Throwable t = e; t != null && text.length() < 400; t = t.getCause() == t ? null : t.getCause()) {
                text.append(text.length() == 0 ? "" : " <- ").append(t.getClass().getSimpleName())
                        .append(t.getMessage() == null ? "" : ": " + t.getMessage());
            }
            return text.toString();
        }

        /** From the file, else the environment; secrets are never taken from arguments. */
        private Map<String, Object> registrySettings() {
            String fromEnv = System.getenv("SHARDFLOW_REGISTRY_CONFIG");
            Path file = registryConfig != null ? registryConfig : fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv);
            Map<String, Object> settings = new HashMap<>();
            Map<String, Object> all = file != null ? KafkaClientConfig.load(file.toString())
                    : ConfigFiles.load(null, System.getenv(), Map.of());
            all.forEach((key, value) -> {
                if (key.startsWith("registry.auth.") || key.startsWith("registry.tls.")) {
                    settings.put(key, value);
                }
            });
            return settings;
        }
    }
}
