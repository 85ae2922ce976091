package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.it.PythonShardReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Samples sent over HTTP end in the dataset like samples a device publishes itself: the gateway's
 * records go through the real ingest-app and shard-sink, and the shards read back (h5py) hold each
 * sample once, with its values and the authenticated device id.
 */
class GatewayPipelineTest {

    @TempDir
    Path work;

    @Test
    void shouldCommitEveryAcceptedSampleOnceWithTheAuthenticatedDeviceId() throws Exception {
        try (GatewayFixture fixture = GatewayFixture.start(work, Map.of()).withPipeline()) {
            GatewayClient phone = new GatewayClient(fixture.url(), fixture.token("phone-42"));

            List<ObjectNode> batch = IntStream.range(0, 30).mapToObj(n -> GatewayClient.sample("s-" + n, n)).toList();
            GatewayClient.Answer answer = phone.postJson(GatewayClient.batch(batch), null);
            assertThat(answer.status()).as("%s", answer.body()).isEqualTo(200);
            assertThat(answer.body().get("accepted").asInt()).isEqualTo(30);
            assertThat(answer.body().get("device_id").asText()).isEqualTo("phone-42");
            for (JsonNode result : answer.body().get("results")) {
                assertThat(result.get("status").asText()).isEqualTo("accepted");
                assertThat(result.get("offset").asLong()).isNotNegative();
            }
            GatewayClient.Answer single = phone.postJson(GatewayClient.sample("s-30", 30), null);
            assertThat(single.status()).as("%s", single.body()).isEqualTo(200);

            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> fixture.log().latest().sampleCount() >= 31);
            Snapshot snapshot = fixture.log().latest();
            assertThat(snapshot.sampleCount()).isEqualTo(31);
            List<String> ids = new ArrayList<>();
            for (ShardEntry shard : snapshot.shards()) {
                Path file = work.resolve("shard.h5");
                Files.deleteIfExists(file);
                fixture.stack.store().download(shard.objectKey(), file);
                JsonNode h5 = PythonShardReader.read(file);
                JsonNode labels = h5.get("tensors").get("label").get("values");
                for (int row = 0; row < shard.sampleCount(); row++) {
                    String id = h5.get("sample_ids").get(row).asText();
                    ids.add(id);
                    long n = Long.parseLong(id.substring(2));
                    assertThat(h5.get("device_ids").get(row).asText()).isEqualTo("phone-42");
                    assertThat(labels.get(row).get(0).asLong()).isEqualTo(GatewayClient.SYNTHETIC.label(n));
                    assertThat((float) h5.get("tensors").get("image").get("values").get(row).get(5).asDouble())
                            .isEqualTo(GatewayClient.SYNTHETIC.image(n)[5]);
                    assertThat(h5.get("attributes").get(row).get("n").asText()).isEqualTo(Long.toString(n));
                }
            }
            assertThat(ids).doesNotHaveDuplicates().hasSize(31);
        }
    }
}
