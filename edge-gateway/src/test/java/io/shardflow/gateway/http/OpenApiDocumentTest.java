package io.shardflow.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shardflow.app.validate.RejectReason;
import io.shardflow.gateway.config.RequestLimits;
import io.shardflow.gateway.parse.TensorTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenApiDocumentTest {

    private final JsonNode doc = read(OpenApiDocument.render(new RequestLimits(1234567, 77, 4096, Duration.ofSeconds(5), 2)));

    @Test
    void shouldPublishThisInstancesLimits() {
        assertThat(doc.get("openapi").asText()).isEqualTo("3.1.0");
        assertThat(doc.at("/info/x-shardflow-limits/max_request_bytes").asLong()).isEqualTo(1234567);
        assertThat(doc.at("/components/schemas/SampleBatch/properties/samples/maxItems").asInt()).isEqualTo(77);
    }

    @Test
    void shouldListEveryReasonCodeOfTheDeadLetterTopicAndEveryDtype() {
        assertThat(strings(doc.at("/components/schemas/Result/properties/reason/enum")))
                .containsExactlyElementsOf(Arrays.stream(RejectReason.values()).map(Enum::name).toList());
        assertThat(strings(doc.at("/components/schemas/Tensor/properties/dtype/enum"))).containsExactlyElementsOf(TensorTypes.NAMES);
    }

    @Test
    void shouldDescribeExactlyTheRoutesTheServerServes() {
        List<String> paths = new ArrayList<>();
        doc.get("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactlyInAnyOrder(GatewayServer.SAMPLES, GatewayServer.SPEC, GatewayServer.OPENAPI);
        assertThat(doc.at("/paths/" + GatewayServer.SAMPLES.replace("/", "~1")).has("post")).isTrue();
        assertThat(doc.at("/paths/" + GatewayServer.SPEC.replace("/", "~1")).has("get")).isTrue();
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(value -> values.add(value.asText()));
        return values;
    }

    private static JsonNode read(String json) {
        try {
            return new ObjectMapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError("openapi.json does not parse", e);
        }
    }
}
