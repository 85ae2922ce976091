package io.shardflow.cli;

import io.shardflow.gateway.auth.DeviceToken;
import io.shardflow.gateway.auth.TokenStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Device tokens of the HTTP gateway, kept in the object store beside the datasets
 * ({@code gateway/tokens/<id>.json}: the secret's SHA-256, never the secret; revocations in
 * {@code gateway/revoked/}). A running gateway sees a new or revoked token within
 * {@code auth.token.cache.ms}.
 */
@Command(name = "token", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Issue, revoke and list device tokens of the HTTP gateway.",
        subcommands = {GatewayTokenCommand.Create.class, GatewayTokenCommand.Revoke.class, GatewayTokenCommand.ListTokens.class})
final class GatewayTokenCommand {

    static TokenStore tokens(DatasetSubcommand command) {
        return new TokenStore(command.store(), command.clock);
    }

    @Command(name = "create", versionProvider = VersionProvider.class,
            description = "Issue a token for one device. Prints the token alone on stdout (shown once, kept only hashed); details on stderr.",
            footerHeading = "%nExamples:%n",
            footer = {"  TOKEN=$(bin/shardflow gateway token create --device phone-17 --dataset cams --days 90)",
                    "  bin/shardflow gateway token create --device kiosk-3 --dataset '*' --requests-per-second 2 --json"})
    static final class Create extends DatasetSubcommand {
        @Mixin
        HelpOnlyOptions help;
        @Option(names = "--device", required = true, description = "the device id stamped into every sample it sends")
        String device;
        @Option(names = "--dataset", required = true, description = "a dataset it may write to (repeatable; * for all)")
        List<String> datasets;
        @Option(names = "--days", description = "days until it expires (default: never)")
        Integer days;
        @Option(names = "--requests-per-second", description = "its own request rate (default: the gateway's quota.requests.per.second)")
        Double requestsPerSecond;
        @Option(names = "--bytes-per-second", description = "its own byte rate (default: the gateway's quota.bytes.per.second)")
        Long bytesPerSecond;
        @Option(names = "--description", defaultValue = "", description = "free text kept with the token")
        String description;
        @Option(names = "--json", description = "print {token, id, deviceId, datasets, expiresAt} instead")
        boolean json;

        @Override
        public Integer call() {
            if (days != null && days < 1) {
                throw new IllegalArgumentException("--days must be at least 1");
            }
            TokenStore.Issued issued = tokens(this).create(device, datasets, days == null ? null : Duration.ofDays(days), requestsPerSecond,
                    bytesPerSecond, description);
            DeviceToken record = issued.record();
            if (json) {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("token", issued.token());
                view.put("id", record.id());
                view.put("deviceId", record.deviceId());
                view.put("datasets", record.datasets());
                view.put("expiresAt", record.expiresAt());
                out().println(JsonOutput.write(view));
            } else {
                out().println(issued.token());
                PrintWriter err = command.commandLine().getErr();
                err.printf("token %s for device %s, datasets %s, %s; shown once, keep it secret%n", record.id(), record.deviceId(),
                        record.datasets(), record.expiresAt() == null ? "no expiry" : "expires " + record.expiresAt());
                err.flush();
            }
            return 0;
        }
    }

    @Command(name = "revoke", versionProvider = VersionProvider.class,
            description = "Revoke a token by id; gateways refuse it within auth.token.cache.ms.")
    static final class Revoke extends DatasetSubcommand {
        @Mixin
        HelpOnlyOptions help;
        @Parameters(paramLabel = "ID", description = "the token's id (the 16 characters after sfgw_, as 'token list' shows)")
        String id;
        @Option(names = "--reason", defaultValue = "", description = "why, kept in the revocation record")
        String reason;

        @Override
        public Integer call() {
            boolean now = tokens(this).revoke(id, reason);
            out().println(now ? "revoked " + id : id + " was already revoked");
            return 0;
        }
    }

    @Command(name = "list", versionProvider = VersionProvider.class, description = "List the tokens (never their secrets).")
    static final class ListTokens extends DatasetSubcommand {
        @Mixin
        HelpOnlyOptions help;
        @Option(names = "--json", description = "print a JSON array")
        boolean json;

        @Override
        public Integer call() {
            List<TokenStore.Stored> all = tokens(this).list();
            if (json) {
                out().println(JsonOutput.write(all.stream().map(stored -> {
                    Map<String, Object> view = new LinkedHashMap<>();
                    view.put("id", stored.token().id());
                    view.put("deviceId", stored.token().deviceId());
                    view.put("datasets", stored.token().datasets());
                    view.put("createdAt", stored.token().createdAt());
                    view.put("expiresAt", stored.token().expiresAt());
                    view.put("revoked", stored.revoked());
                    return view;
                }).toList()));
                return 0;
            }
            out().printf("%-16s  %-24s  %-8s  %-20s  %s%n", "ID", "DEVICE", "STATE", "EXPIRES", "DATASETS");
            for (TokenStore.Stored stored : all) {
                DeviceToken token = stored.token();
                String state = stored.revoked() ? "revoked" : token.expiredAt(clock.instant()) ? "expired" : "active";
                out().printf("%-16s  %-24s  %-8s  %-20s  %s%n", token.id(), token.deviceId(), state,
                        token.expiresAt() == null ? "never" : token.expiresAt().toString(), String.join(",", token.datasets()));
            }
            return 0;
        }
    }
}
