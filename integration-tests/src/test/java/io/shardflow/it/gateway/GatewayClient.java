package io.shardflow.it.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.edge.SyntheticSamples;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Base64;
import java.util.List;

/** What a mobile app does over HTTP, with the JDK's client: JSON samples with base64 tensors. */
final class GatewayClient {

    static final ObjectMapper JSON = new ObjectMapper();
    static final SyntheticSamples SYNTHETIC = new SyntheticSamples(GatewayFixture.DATASET, GatewayFixture.VERSION, "unused", 3, 8, 10, 5);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;
    private final String version;

    GatewayClient(String base, String token) {
        this(base, token, GatewayFixture.VERSION);
    }

    GatewayClient(String base, String token, String version) {
        this.base = base;
        this.token = token;
        this.version = version;
    }

    record Answer(int status, JsonNode body, HttpResponse<byte[]> raw) {
    }

    static String samplesPath() {
        return samplesPath(GatewayFixture.VERSION);
    }

    static String samplesPath(String version) {
        return "/v1/datasets/" + GatewayFixture.DATASET + "/versions/" + version + "/samples";
    }

    /** Sample {@code n}: the synthetic image and label, under sample id {@code id}. */
    static ObjectNode sample(String id, long n) {
        ObjectNode sample = JSON.createObjectNode().put("sample_id", id);
        sample.putObject("attributes").put("n", Long.toString(n));
        ObjectNode tensors = sample.putObject("tensors");
        ByteBuffer image = ByteBuffer.allocate(3 * 8 * 8 * 4).order(ByteOrder.LITTLE_ENDIAN);
        image.asFloatBuffer().put(SYNTHETIC.image(n));
        ObjectNode imageNode = tensors.putObject("image").put("dtype", "float32").put("data", Base64.getEncoder().encodeToString(image.array()));
        imageNode.putArray("shape").add(3).add(8).add(8);
        ByteBuffer label = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, SYNTHETIC.label(n));
        tensors.putObject("label").put("dtype", "int64").put("data", Base64.getEncoder().encodeToString(label.array()));
        return sample;
    }

    static ObjectNode batch(List<ObjectNode> samples) {
        ObjectNode batch = JSON.createObjectNode();
        samples.forEach(batch.putArray("samples")::add);
        return batch;
    }

    Answer postJson(JsonNode body, String idempotencyKey) throws IOException, InterruptedException {
        return post(JSON.writeValueAsBytes(body), "application/json", idempotencyKey);
    }

    Answer post(byte[] body, String contentType, String idempotencyKey) throws IOException, InterruptedException {
        return post(body, contentType, idempotencyKey, Duration.ofSeconds(60));
    }

    Answer post(byte[] body, String contentType, String idempotencyKey, Duration timeout) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + samplesPath(version))).timeout(timeout)
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return answer(http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray()));
    }

    Answer get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return answer(http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray()));
    }

    private static Answer answer(HttpResponse<byte[]> response) throws IOException {
        JsonNode body = response.body().length == 0 ? null : JSON.readTree(response.body());
        return new Answer(response.statusCode(), body, response);
    }
}
