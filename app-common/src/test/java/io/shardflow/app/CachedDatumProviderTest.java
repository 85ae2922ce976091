package io.shardflow.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import io.shardflow.schemas.DType;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class CachedDatumProviderTest {

    private final CachedDatumProvider<Object> provider = new CachedDatumProvider<>();

    CachedDatumProviderTest() {
        provider.configure(new AvroSerdeConfig(Map.of(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, true)));
    }

    @Test
    void shouldHandTheSameReaderForTheSameSchemaInstanceAndDecodeWithIt() throws Exception {
        Schema writer = new Schema.Parser().parse(Sample.getClassSchema().toString());
        DatumReader<Object> first = provider.createDatumReader(writer);

        assertThat(provider.createDatumReader(writer)).isSameAs(first);
        Sample sample = Sample.newBuilder().setDataset("d").setVersion("v1").setSampleId("s-1").setDeviceId("dev")
                .setProducedAt(Instant.ofEpochMilli(1_700_000_000_000L)).setAttributes(Map.of())
                .setTensors(List.of(Tensor.newBuilder().setName("x").setDtype(DType.UINT8).setShape(List.of(2))
                        .setData(ByteBuffer.wrap(new byte[] {1, 2})).build())).build();
        assertThat(decode(first, sample)).isEqualTo(sample);
    }

    @Test
    void shouldGiveAnotherSchemaItsOwnReader() throws Exception {
        Schema sample = new Schema.Parser().parse(Sample.getClassSchema().toString());
        Schema tensor = new Schema.Parser().parse(Tensor.getClassSchema().toString());

        DatumReader<Object> forSample = provider.createDatumReader(sample);
        DatumReader<Object> forTensor = provider.createDatumReader(tensor);

        assertThat(forTensor).isNotSameAs(forSample);
        assertThat(provider.createDatumReader(sample)).as("found again after another schema").isSameAs(forSample);
    }

    private static Object decode(DatumReader<Object> reader, Sample sample) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new SpecificDatumWriter<>(Sample.class).write(sample, encoder);
        encoder.flush();
        return reader.read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    }
}
