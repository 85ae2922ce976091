package io.shardflow.gateway.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class JsonSamplesTest {

    private static final RequestContext CONTEXT = new RequestContext("cams", "v1", "phone-1", Instant.parse("2026-01-01T00:00:00Z"), 10);
    private final JsonSamples json = new JsonSamples(10 * (2 * 32 + 64) + 64);

    @Test
    void shouldReadOneSampleWithTheDeviceAndDatasetFromOutsideTheBody() {
        List<ParsedSample> samples = parse("""
                {"sample_id": "a", "attributes": {"k": "v"}, "produced_at": "2026-02-03T04:05:06Z",
                 "tensors": {"label": {"dtype": "int64", "data": "BwAAAAAAAAA="}, "image": {"dtype": "uint8", "shape": [2], "data": "AQI="}}}""");

        Sample sample = samples.get(0).sample();
        assertThat(sample.getDataset()).isEqualTo("cams");
        assertThat(sample.getDeviceId()).isEqualTo("phone-1");
        assertThat(samples.get(0).claimedDeviceId()).isNull();
        assertThat(sample.getProducedAt()).isEqualTo(Instant.parse("2026-02-03T04:05:06Z"));
        assertThat(sample.getTensors().get(0).getDtype()).isEqualTo(DType.INT64);
        assertThat(sample.getTensors().get(0).getShape()).isEmpty();
        assertThat(sample.getTensors().get(0).getData().getLong()).isEqualTo(7L << 56);
        assertThat(sample.getTensors().get(1).getShape()).containsExactly(2);
        assertThat(sample.getAttributes()).containsEntry("k", "v");
    }

    @Test
    void shouldStampTheReceiveTimeAndKeepTheClaimedDevice() {
        ParsedSample sample = parse("{\"sample_id\": \"a\", \"device_id\": \"other\", \"tensors\": {}}").get(0);

        assertThat(sample.sample().getProducedAt()).isEqualTo(CONTEXT.receivedAt());
        assertThat(sample.sample().getDeviceId()).isEqualTo("phone-1");
        assertThat(sample.claimedDeviceId()).isEqualTo("other");
    }

    @Test
    void shouldReadABatchInOrder() {
        List<ParsedSample> samples = parse("{\"samples\": [{\"sample_id\": \"a\", \"tensors\": {}}, {\"sample_id\": \"b\", \"tensors\": {}}]}");

        assertThat(samples).extracting(s -> s.sample().getSampleId()).containsExactly("a", "b");
    }

    @Test
    void shouldRefuseWhatItWouldOtherwiseHaveToGuess() {
        assertMalformed("{\"sample_id\": 5, \"tensors\": {}}", "sample.sample_id must be a string");
        assertMalformed("{\"sample_id\": \"a\", \"tensors\": {}, \"extra\": 1}", "unknown field 'extra'");
        assertMalformed("{\"sample_id\": \"a\", \"tensors\": {\"t\": {\"dtype\": \"int64\", \"data\": \"%%%\"}}}", "is not base64");
        assertMalformed("{\"sample_id\": \"a\", \"tensors\": {\"t\": {\"dtype\": \"unknown\", \"data\": \"\"}}}", "dtype must be one of");
        assertMalformed("{\"sample_id\": \"a\", \"tensors\": {\"t\": {\"dtype\": \"int8\", \"shape\": [-1], \"data\": \"\"}}}", "non-negative");
        assertMalformed("{\"sample_id\": \"a\", \"tensors\": {\"t\": {\"dtype\": \"int8\", \"part\": \"p\"}}}", "has no parts");
        assertMalformed("{\"sample_id\": \"a\", \"produced_at\": \"yesterday\", \"tensors\": {}}", "RFC 3339");
        assertMalformed("{\"samples\": []}", "at least one sample");
        assertMalformed("[1, 2]", "must be a JSON object");
        assertMalformed("{\"sample_id\": \"a\", \"tens", "not valid JSON");
    }

    @Test
    void shouldRefuseMoreSamplesThanTheLimitAs413() {
        String many = "{\"samples\": [" + String.join(",", java.util.Collections.nCopies(11, "{\"sample_id\": \"a\", \"tensors\": {}}")) + "]}";

        assertThatThrownBy(() -> parse(many)).isInstanceOfSatisfying(BadRequest.class, e -> assertThat(e.status()).isEqualTo(413));
    }

    @Test
    void shouldStopReadingAHugeLabelMapBeforeItCostsMemory() {
        StringBuilder labels = new StringBuilder("{\"sample_id\": \"a\", \"tensors\": {}, \"attributes\": {");
        for (int i = 0; i < 50_000; i++) {
            labels.append(i == 0 ? "" : ",").append("\"k").append(i).append("\": \"v\"");
        }
        String body = labels.append("}}").toString();

        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(BadRequest.class, e -> {
            assertThat(e.status()).isEqualTo(413);
            assertThat(e.code()).isEqualTo("REQUEST_TOO_LARGE");
        });
    }

    private List<ParsedSample> parse(String body) {
        return json.parse(body.getBytes(StandardCharsets.UTF_8), CONTEXT);
    }

    private void assertMalformed(String body, String message) {
        assertThatThrownBy(() -> parse(body)).as(body).isInstanceOfSatisfying(BadRequest.class, e -> {
            assertThat(e.status()).isEqualTo(400);
            assertThat(e.getMessage()).contains(message);
        });
    }
}
