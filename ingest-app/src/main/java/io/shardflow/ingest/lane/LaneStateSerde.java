package io.shardflow.ingest.lane;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary serde for {@link LaneState} in the lane store and its changelog. It is written once per
 * accepted sample, so it is a compact fixed layout with a leading format byte rather than JSON.
 */
public final class LaneStateSerde implements Serde<LaneState> {

    private static final byte FORMAT_V1 = 1;
    /** Adds the byte budget (tensors plus attributes); a v1 state's budget was its tensor payload. */
    private static final byte FORMAT_V2 = 2;

    @Override
    public Serializer<LaneState> serializer() {
        return (topic, state) -> state == null ? null : encode(state);
    }

    @Override
    public Deserializer<LaneState> deserializer() {
        return (topic, bytes) -> bytes == null ? null : decode(bytes);
    }

    static byte[] encode(LaneState state) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(buffer)) {
            out.writeByte(FORMAT_V2);
            out.writeLong(state.sequence());
            out.writeInt(state.sampleCount());
            out.writeLong(state.payloadBytes());
            out.writeLong(state.budgetBytes());
            out.writeLong(state.openedAtMillis());
            out.writeUTF(state.specFingerprint());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    static LaneState decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte format = in.readByte();
            if (format != FORMAT_V1 && format != FORMAT_V2) {
                throw new IllegalStateException("lane state written in unknown format " + format);
            }
            long sequence = in.readLong();
            int sampleCount = in.readInt();
            long payloadBytes = in.readLong();
            long budgetBytes = format == FORMAT_V2 ? in.readLong() : payloadBytes;
            return new LaneState(sequence, sampleCount, payloadBytes, budgetBytes, in.readLong(), in.readUTF());
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt lane state", e);
        }
    }
}
