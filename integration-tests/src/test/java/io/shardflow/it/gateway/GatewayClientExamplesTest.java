package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.app.SampleDeserializers;
import io.shardflow.it.support.KafkaTopics;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client examples a mobile developer copies (edge-gateway/examples): the curl script and the
 * JavaScript fetch module, run as they are (sh + curl, Node's built-in fetch) against a gateway on a
 * real stack; the records they caused are read back from the samples topic with the deserializer
 * ingest-app uses, holding the JPEG byte for byte, the label and the token's device id.
 */
class GatewayClientExamplesTest {

    private static final Path EXAMPLES = Path.of(System.getProperty("shardflow.repo", ".."), "edge-gateway", "examples");

    @TempDir
    Path work;

    @Test
    void shouldSendPhotosWithTheCurlAndFetchExamples() throws Exception {
        try (GatewayFixture fixture = GatewayFixture.start(work, Map.of())) {
            fixture.stack.createDataset("photos", "v1", "camera photos", "frame:bytes:image/jpeg", "label:int64");
            String token = fixture.tokens().create("phone-js", List.of("photos"), null, null, null, "").token();
            Path photo = work.resolve("photo.jpg");
            byte[] jpeg = jpeg();
            Files.write(photo, jpeg);
            Map<String, String> env = Map.of("GATEWAY_URL", fixture.url(), "GATEWAY_TOKEN", token);

            String curl = run(env, "sh", EXAMPLES.resolve("send-photo.sh").toString(), photo.toString(), "3", "curl-photo-1");
            String node = run(env, "node", EXAMPLES.resolve("send-samples.mjs").toString(), photo.toString(), "js-photo");

            assertThat(curl).contains("\"status\":\"accepted\"");
            assertThat(node.lines().filter(line -> line.contains("\"status\":\"accepted\""))).hasSize(2);
            Map<String, Sample> records = read(fixture, 4);
            assertThat(records).containsOnlyKeys("curl-photo-1", "js-photo-0", "js-photo-1", "js-photo-2");
            Map<String, Long> labels = Map.of("curl-photo-1", 3L, "js-photo-0", 3L, "js-photo-1", 4L, "js-photo-2", 5L);
            records.forEach((id, sample) -> {
                assertThat(sample.getDeviceId()).isEqualTo("phone-js");
                assertThat(sample.getDataset()).isEqualTo("photos");
                assertThat(bytes(tensor(sample, "frame"))).as(id).isEqualTo(jpeg);
                assertThat(ByteBuffer.wrap(bytes(tensor(sample, "label"))).order(ByteOrder.LITTLE_ENDIAN).getLong()).as(id)
                        .isEqualTo(labels.get(id));
            });
        }
    }

    private static Map<String, Sample> read(GatewayFixture fixture, int count) {
        List<ConsumerRecord<byte[], byte[]>> records = new KafkaTopics(fixture.stack.endpoints().bootstrapServers())
                .readUntil("samples", found -> found.size() >= count, Duration.ofSeconds(60));
        var deserializer = SampleDeserializers.forRegistry(Map.of("apicurio.registry.url", fixture.stack.endpoints().registryUrl()));
        Map<String, Sample> samples = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : records) {
            Sample sample = (Sample) deserializer.deserialize("samples", record.headers(), record.value());
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).as("keyed by sample id, as edge-client keys").isEqualTo(sample.getSampleId());
            samples.put(sample.getSampleId(), sample);
        }
        return samples;
    }

    private static Tensor tensor(Sample sample, String name) {
        return sample.getTensors().stream().filter(t -> t.getName().equals(name)).findFirst().orElseThrow();
    }

    private static byte[] bytes(Tensor tensor) {
        byte[] bytes = new byte[tensor.getData().remaining()];
        tensor.getData().duplicate().get(bytes);
        return bytes;
    }

    private String run(Map<String, String> env, String... command) throws Exception {
        Path output = Files.createTempFile(work, "example", ".log");
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        assertThat(process.waitFor(2, TimeUnit.MINUTES)).as("%s finished", String.join(" ", command)).isTrue();
        String text = Files.readString(output);
        assertThat(process.exitValue()).as(text).isZero();
        return text;
    }

    private static byte[] jpeg() throws Exception {
        BufferedImage image = new BufferedImage(32, 24, BufferedImage.TYPE_INT_RGB);
        for (int x = 0; x < 32; x++) {
            for (int y = 0; y < 24; y++) {
                image.setRGB(x, y, (x * 8) << 16 | (y * 10) << 8 | 90);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "jpeg", out);
        return out.toByteArray();
    }
}
