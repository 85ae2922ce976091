package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.app.MetricsEndpoint;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operations page on the real stack: the services' own metrics endpoint class (app-common's, the one
 * ingest-app and shard-sink serve), consumer lag per lane from the groups the pipeline committed, the last
 * shard committed per dataset version, and a service that does not answer.
 */
class OperationsViewTest {

    @TempDir
    Path cache;

    @Test
    void shouldShowServiceHealthMetersLagPerLaneAndTheLastSeal() throws Exception {
        ConsoleStack data = ConsoleStack.get();
        try (MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0)) {
            endpoint.registry().counter("shardflow_sink_shards_committed").increment(7);
            endpoint.readiness(() -> true);
            ConsoleSettings settings = new ConsoleSettings("127.0.0.1", 0, Optional.empty(), cache, 64L << 20,
                    Optional.of(ConsoleSettings.KafkaSettings.defaults(data.endpoints.bootstrapServers(), Map.of())), null,
                    Map.of("shard-sink", URI.create("http://127.0.0.1:" + endpoint.port()), "gone", URI.create("http://127.0.0.1:1")));
            try (ConsoleServer console = ConsoleServer.start(settings, data.store, null, Clock.systemUTC())) {
                String page = new ConsoleHttp(console.port()).page("/operations");

                assertThat(page).containsPattern("<b>shard-sink</b> <span class=\"badge ok\">UP</span>")
                        .containsPattern("shardflow_sink_shards_committed_total</td><td class=\"num\">7\\.0")
                        .containsPattern("<b>gone</b> <span class=\"badge bad\">no answer");
                assertThat(page).contains("id=\"lag\"").containsPattern("<td>shardflow-ingest</td><td>samples</td><td class=\"num\">0</td>")
                        .containsPattern("<td>shardflow-shard-sink</td><td>shard-assignments</td><td class=\"num\">\\d</td>");
                assertThat(page).containsPattern("cams/v1</a></td><td>\\d+</td><td>20\\d\\d-");
            }
        }
    }
}
