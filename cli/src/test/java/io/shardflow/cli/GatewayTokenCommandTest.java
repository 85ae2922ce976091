package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.gateway.auth.TokenAuthenticator;
import io.shardflow.gateway.auth.TokenSecrets;
import io.shardflow.gateway.auth.TokenStore;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class GatewayTokenCommandTest {

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Test
    void shouldIssueATokenThatAuthenticatesAndIsStoredOnlyHashed() {
        DatasetCommandRunner.Run run = gateway("token", "create", "--device", "phone-17", "--dataset", "cams", "--dataset", "det");

        assertThat(run.exitCode()).as(run.err()).isZero();
        String token = run.out().strip();
        assertThat(TokenSecrets.parse(token)).isPresent();
        String id = TokenSecrets.parse(token).get().id();
        byte[] record = store.get(TokenStore.TOKENS + id + ".json").orElseThrow();
        assertThat(new String(record, StandardCharsets.UTF_8)).doesNotContain(TokenSecrets.parse(token).get().secret())
                .contains(TokenSecrets.sha256(TokenSecrets.parse(token).get().secret()));
        var device = authenticator().authenticate(token).orElseThrow();
        assertThat(device.deviceId()).isEqualTo("phone-17");
        assertThat(device.mayWrite("cams")).isTrue();
        assertThat(device.mayWrite("other")).isFalse();
    }

    @Test
    void shouldListAndRevokeSoTheTokenNoLongerAuthenticates() {
        String token = gateway("token", "create", "--device", "kiosk-3", "--dataset", "*").out().strip();
        String id = TokenSecrets.parse(token).get().id();

        assertThat(gateway("token", "list").out()).contains(id).contains("kiosk-3").contains("active").doesNotContain(token);
        DatasetCommandRunner.Run revoked = gateway("token", "revoke", id, "--reason", "lost phone");

        assertThat(revoked.exitCode()).isZero();
        assertThat(revoked.out()).contains("revoked " + id);
        assertThat(gateway("token", "list", "--json").out()).contains("\"revoked\" : true");
        assertThat(authenticator().authenticate(token)).isEmpty();
        assertThat(gateway("token", "revoke", id).out()).contains("already revoked");
    }

    @Test
    void shouldRefuseABadDatasetNameAsAUsageError() {
        DatasetCommandRunner.Run run = gateway("token", "create", "--device", "d", "--dataset", "../etc");

        assertThat(run.exitCode()).isEqualTo(Shardflow.USAGE);
        assertThat(run.err()).contains("not a dataset name");
        assertThat(store.list(TokenStore.TOKENS, null, 10)).isEmpty();
    }

    @Test
    void shouldRefuseAWrongSecretForAKnownId() {
        String token = gateway("token", "create", "--device", "d", "--dataset", "cams").out().strip();
        String forged = token.substring(0, token.length() - 4) + (token.endsWith("AAAA") ? "BBBB" : "AAAA");

        assertThat(authenticator().authenticate(forged)).isEmpty();
        assertThat(authenticator().authenticate(token)).isPresent();
    }

    private TokenAuthenticator authenticator() {
        return new TokenAuthenticator(new TokenStore(store, DatasetCommandRunner.CLOCK), DatasetCommandRunner.CLOCK, Duration.ZERO);
    }

    private DatasetCommandRunner.Run gateway(String... args) {
        CommandLine.IFactory defaults = CommandLine.defaultFactory();
        CommandLine cli = new CommandLine(new GatewayCommand(), new CommandLine.IFactory() {
            @Override
            public <K> K create(Class<K> type) throws Exception {
                K made = defaults.create(type);
                if (made instanceof DatasetSubcommand command) {
                    command.opener = endpoints -> store;
                    command.clock = DatasetCommandRunner.CLOCK;
                }
                return made;
            }
        });
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("shardflow: " + e.getMessage());
            return Shardflow.exitCodeOf(e);
        });
        return new DatasetCommandRunner.Run(cli.execute(args), out.toString(), err.toString());
    }
}
