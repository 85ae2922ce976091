package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.zip.CRC32;

/**
 * The queue's on-disk records, shared with the Python SDK (docs/EDGE-QUEUE.md): a segment
 * {@code segment-<first seq, 20 digits>.log} starts with a 32-byte header (magic {@code SFEDGEQ1},
 * version u32, reserved u32, first seq u64, CRC-32 of those 24 bytes u32, padding) and holds frames
 * of length u32, CRC-32 u32 (of seq, time and payload), seq u64, time ms i64, payload; the payload is
 * key length u16, key (the sample id), value (the Avro body of the Sample). Big-endian throughout.
 */
public final class SegmentFormat {

    public static final byte[] MAGIC = "SFEDGEQ1".getBytes(StandardCharsets.US_ASCII);
    public static final int VERSION = 1;
    public static final int HEADER_BYTES = 32;
    public static final int FRAME_HEADER_BYTES = 24;
    public static final int MAX_PAYLOAD_BYTES = 256 << 20;

    private SegmentFormat() {
    }

    public static String segmentName(long firstSeq) {
        return String.format("segment-%020d.log", firstSeq);
    }

    /** The first seq a segment file name stands for, or -1 for another file. */
    public static long parseSegmentName(String name) {
        if (name.length() == 32 && name.startsWith("segment-") && name.endsWith(".log")) {
            String digits = name.substring(8, 28);
            if (digits.chars().allMatch(Character::isDigit)) {
                return Long.parseLong(digits);
            }
        }
        return -1;
    }

    public static ByteBuffer header(long firstSeq) {
        ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES);
        head.put(MAGIC).putInt(VERSION).putInt(0).putLong(firstSeq);
        head.putInt(crc(head.array(), 0, 24));
        return head.position(0);
    }

    /** The header's first seq; empty for a header torn at creation (short, zeros or a bad CRC). */
    public static Optional<Long> readHeader(FileChannel channel, String where) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(HEADER_BYTES);
        channel.read(head, 0);
        if (head.position() < HEADER_BYTES) {
            return Optional.empty();
        }
        byte[] raw = head.array();
        boolean zeros = true;
        for (byte b : raw) {
            zeros &= b == 0;
        }
        if (zeros) {
            return Optional.empty();
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (raw[i] != MAGIC[i]) {
                throw new QueueException(where + " is not an edge queue segment");
            }
        }
        ByteBuffer fields = ByteBuffer.wrap(raw);
        if (crc(raw, 0, 24) != fields.getInt(24)) {
            return Optional.empty();
        }
        if (fields.getInt(8) != VERSION) {
            throw new QueueException(where + " has queue format version " + fields.getInt(8) + "; this client reads " + VERSION);
        }
        return Optional.of(fields.getLong(16));
    }

    public static byte[] payload(byte[] key, byte[] value) {
        return ByteBuffer.allocate(2 + key.length + value.length).putShort((short) key.length).put(key).put(value).array();
    }

    /** The frame header of {@code payload}, as the Python SDK writes it. */
    public static ByteBuffer frameHeader(long seq, long timeMs, byte[] payload) {
        CRC32 crc = new CRC32();
        crc.update(ByteBuffer.allocate(16).putLong(seq).putLong(timeMs).array());
        crc.update(payload);
        return ByteBuffer.allocate(FRAME_HEADER_BYTES).putInt(payload.length).putInt((int) crc.getValue()).putLong(seq)
                .putLong(timeMs).position(0);
    }

    /** One stored entry. */
    public record Frame(long seq, long timeMs, byte[] payload, long offset) {
        public long size() {
            return FRAME_HEADER_BYTES + (long) payload.length;
        }

        public byte[] key() {
            int n = Short.toUnsignedInt(ByteBuffer.wrap(payload).getShort(0));
            byte[] key = new byte[n];
            System.arraycopy(payload, 2, key, 0, n);
            return key;
        }

        public byte[] value() {
            int n = Short.toUnsignedInt(ByteBuffer.wrap(payload).getShort(0));
            byte[] value = new byte[payload.length - 2 - n];
            System.arraycopy(payload, 2 + n, value, 0, value.length);
            return value;
        }
    }

    /** The frame at {@code offset} if it is whole, checks out and has {@code expectedSeq}; else empty (the valid part ends). */
    public static Optional<Frame> readFrame(FileChannel channel, long offset, long expectedSeq) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(FRAME_HEADER_BYTES);
        while (head.hasRemaining() && channel.read(head, offset + head.position()) > 0) {
            // read fully
        }
        if (head.hasRemaining()) {
            return Optional.empty();
        }
        int length = head.getInt(0);
        int crc = head.getInt(4);
        long seq = head.getLong(8);
        long time = head.getLong(16);
        if (length < 0 || length > MAX_PAYLOAD_BYTES || seq != expectedSeq) {
            return Optional.empty();
        }
        ByteBuffer payload = ByteBuffer.allocate(length);
        while (payload.hasRemaining() && channel.read(payload, offset + FRAME_HEADER_BYTES + payload.position()) > 0) {
            // read fully
        }
        if (payload.hasRemaining()) {
            return Optional.empty();
        }
        CRC32 check = new CRC32();
        check.update(head.array(), 8, 16);
        check.update(payload.array());
        if ((int) check.getValue() != crc) {
            return Optional.empty();
        }
        return Optional.of(new Frame(seq, time, payload.array(), offset));
    }

    static int crc(byte[] data, int from, int length) {
        CRC32 crc = new CRC32();
        crc.update(data, from, length);
        return (int) crc.getValue();
    }
}
