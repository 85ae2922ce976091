package io.shardflow.schemas.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;

/**
 * Frames {@link ShardEvent}s for the shard-assignments topic: one format-version byte, then plain
 * Avro binary. The topic is internal to shardflow, so it needs no registry round trip; the version
 * byte lets a newer shard-sink refuse (rather than misread) events from a format it does not know.
 */
public final class ShardEventCodec {

    /** Version 2: assignments name a samples record (partition = lane, offset) instead of carrying the sample. */
    public static final byte FORMAT_V2 = 2;

    private static final SpecificDatumWriter<ShardEvent> WRITER = new SpecificDatumWriter<>(ShardEvent.class);
    private static final SpecificDatumReader<ShardEvent> READER = new SpecificDatumReader<>(ShardEvent.class);

    private ShardEventCodec() {
    }

    public static byte[] encode(ShardEvent event) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        out.write(FORMAT_V2);
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            WRITER.write(event, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode shard event", e);
        }
        return out.toByteArray();
    }

    public static ShardEvent decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new IllegalArgumentException("empty shard event");
        }
        if (bytes[0] != FORMAT_V2) {
            throw new IllegalArgumentException("unknown shard event format version " + bytes[0]);
        }
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(bytes, 1, bytes.length - 1, null);
        try {
            return READER.read(null, decoder);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot decode shard event", e);
        }
    }
}
