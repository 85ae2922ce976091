package io.shardflow.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class DTypeEvolutionTest {

    @Test
    void shouldRoundTripEveryDtypeSymbolInASample() throws Exception {
        for (DType dtype : DType.values()) {
            Sample sample = Sample.newBuilder().setDataset("d").setVersion("v1").setSampleId("s").setDeviceId("dev")
                    .setProducedAt(Instant.EPOCH).setAttributes(Map.of())
                    .setTensors(List.of(new Tensor("t", dtype, List.of(2), ByteBuffer.wrap(new byte[] {1, 2, 3, 4}))))
                    .build();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
            new SpecificDatumWriter<>(Sample.class).write(sample, encoder);
            encoder.flush();

            Sample read = new SpecificDatumReader<>(Sample.class).read(null,
                    DecoderFactory.get().binaryDecoder(out.toByteArray(), null));

            assertThat(read.getTensors().get(0).getDtype()).isEqualTo(dtype);
        }
    }

    @Test
    void shouldReadASymbolNewerThanItsSchemaAsTheUnknownDefault() throws Exception {
        // A future writer appends FLOAT8: this reader resolves it through the enum default.
        String future = Sample.getClassSchema().toString().replace("\"BYTES\",\"UNKNOWN\"", "\"BYTES\",\"UNKNOWN\",\"FLOAT8\"");
        assertThat(future).contains("FLOAT8");
        Schema writer = new Schema.Parser().parse(future);
        Schema tensorSchema = writer.getField("tensors").schema().getElementType();
        GenericRecord tensor = new GenericData.Record(tensorSchema);
        tensor.put("name", "t");
        tensor.put("dtype", new GenericData.EnumSymbol(tensorSchema.getField("dtype").schema(), "FLOAT8"));
        tensor.put("shape", List.of(1));
        tensor.put("data", ByteBuffer.wrap(new byte[] {1}));
        GenericRecord sample = new GenericData.Record(writer);
        sample.put("dataset", "d");
        sample.put("version", "v1");
        sample.put("sampleId", "s");
        sample.put("deviceId", "dev");
        sample.put("producedAt", 0L);
        sample.put("tensors", List.of(tensor));
        sample.put("attributes", Map.of());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(writer).write(sample, encoder);
        encoder.flush();

        Sample read = new SpecificDatumReader<Sample>(writer, Sample.getClassSchema()).read(null,
                DecoderFactory.get().binaryDecoder(out.toByteArray(), null));

        assertThat(read.getTensors().get(0).getDtype()).isEqualTo(DType.UNKNOWN);
    }
}
