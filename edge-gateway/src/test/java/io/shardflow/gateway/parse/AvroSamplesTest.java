package io.shardflow.gateway.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.schemas.Sample;
import java.io.ByteArrayOutputStream;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class AvroSamplesTest {

    static {
        AvroSamples.limitAvroAllocations(1 << 20);
    }

    private static final RequestContext CONTEXT = new RequestContext("cams", "v1", "phone-1", Instant.EPOCH, 10);
    private final AvroSamples avro = new AvroSamples();

    @Test
    void shouldReadSamplesBackToBackAndStampTheDevice() throws Exception {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(encode(sample("a", "")));
        body.write(encode(sample("b", "phone-1")));

        List<ParsedSample> samples = avro.parse(body.toByteArray(), CONTEXT);

        assertThat(samples).extracting(s -> s.sample().getSampleId()).containsExactly("a", "b");
        assertThat(samples).allSatisfy(s -> assertThat(s.sample().getDeviceId()).isEqualTo("phone-1"));
        assertThat(samples.get(0).claimedDeviceId()).isNull();
        assertThat(samples.get(1).claimedDeviceId()).isEqualTo("phone-1");
    }

    @Test
    void shouldRefuseASampleOfAnotherDatasetThanThePath() throws Exception {
        Sample other = sample("a", "");
        other.setDataset("elsewhere");

        assertThatThrownBy(() -> avro.parse(encode(other), CONTEXT)).isInstanceOfSatisfying(BadRequest.class,
                e -> assertThat(e.getMessage()).contains("elsewhere/v1 but was posted to cams/v1"));
    }

    private static Sample sample(String id, String device) {
        return Sample.newBuilder().setDataset("cams").setVersion("v1").setSampleId(id).setDeviceId(device).setProducedAt(Instant.EPOCH)
                .setTensors(List.of()).setAttributes(Map.of()).build();
    }

    static byte[] encode(Sample sample) throws java.io.IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new SpecificDatumWriter<>(Sample.class).write(sample, encoder);
        encoder.flush();
        return out.toByteArray();
    }
}
