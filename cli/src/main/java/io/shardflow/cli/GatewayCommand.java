package io.shardflow.cli;

import io.shardflow.gateway.GatewayApp;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "gateway", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class, footerHeading = "%nExamples:%n",
        footer = {"  TOKEN=$(bin/shardflow gateway token create --device phone-17 --dataset cams)",
                "  bin/shardflow gateway token list",
                "  bin/shardflow gateway token revoke k3j5x2mq7hfa4c9d",
                "  bin/shardflow gateway run gateway.properties",
                "  bin/shardflow stack up --gateway     # a local stack with the gateway beside it",
                "The HTTP API, its settings and client examples: docs/HTTP-GATEWAY.md."},
        description = "The HTTP ingest gateway for mobile and web apps: device tokens, and running it.",
        subcommands = {GatewayTokenCommand.class, GatewayCommand.Run.class})
final class GatewayCommand {

    @Command(name = "run", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
            description = "Run edge-gateway (settings from the file and SHARDFLOW_* environment variables).")
    static final class Run implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "CONFIG", description = "properties file of gateway settings (optional)")
        Path config;

        @Override
        public Integer call() {
            GatewayApp.main(config == null ? new String[0] : new String[] {config.toString()});
            return 0;
        }
    }
}
