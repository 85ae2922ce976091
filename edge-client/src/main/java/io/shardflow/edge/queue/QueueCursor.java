package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.UUID;

/**
 * The done seq ({@code cursor}: two 32-byte slots of generation u64, done seq i64, CRC-32 written in
 * turn, the valid one with the highest generation wins), the attempted mark ({@code attempted}, the
 * same two slots: the highest seq the sender may ever have produced, synced before it produces past
 * it) and the queue id ({@code queue.id}: 32 hex digits), as the Python SDK keeps them
 * (docs/EDGE-QUEUE.md).
 */
final class QueueCursor implements AutoCloseable {

    static final int SLOT_BYTES = 32;
    static final String CURSOR_FILE = "cursor";
    static final String ATTEMPTED_FILE = "attempted";
    private final FileChannel channel;
    private final boolean existed;
    private long generation;
    private long done;
    private boolean dirty;

    QueueCursor(Path directory, String name) throws IOException {
        existed = Files.exists(directory.resolve(name));
        channel = FileChannel.open(directory.resolve(name), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        if (channel.size() < 2 * SLOT_BYTES) {
            channel.write(ByteBuffer.allocate((int) (2 * SLOT_BYTES - channel.size())), channel.size());
            channel.force(true);
        }
        ByteBuffer slots = ByteBuffer.allocate(2 * SLOT_BYTES);
        channel.read(slots, 0);
        for (int i = 0; i < 2; i++) {
            long gen = slots.getLong(i * SLOT_BYTES);
            long value = slots.getLong(i * SLOT_BYTES + 8);
            if (gen > generation && SegmentFormat.crc(slots.array(), i * SLOT_BYTES, 16) == slots.getInt(i * SLOT_BYTES + 16)) {
                generation = gen;
                done = value;
            }
        }
    }

    long done() {
        return done;
    }

    /** Whether the file was there before this opened it. */
    boolean existed() {
        return existed;
    }

    void advance(long newDone) throws IOException {
        if (newDone <= done) {
            return;
        }
        generation++;
        done = newDone;
        ByteBuffer slot = ByteBuffer.allocate(SLOT_BYTES).putLong(generation).putLong(done);
        slot.putInt(SegmentFormat.crc(slot.array(), 0, 16));
        channel.write(slot.position(0), (generation % 2) * SLOT_BYTES);
        dirty = true;
    }

    void sync(boolean force) throws IOException {
        if (dirty || force) {
            channel.force(false);
            dirty = false;
        }
    }

    @Override
    public void close() throws IOException {
        sync(false);
        channel.close();
    }

    static String loadOrCreateId(Path directory) throws IOException {
        Path file = directory.resolve("queue.id");
        if (Files.exists(file)) {
            String id = Files.readString(file, StandardCharsets.US_ASCII).strip();
            if (!id.matches("[0-9a-f]{32}")) {
                throw new QueueException(file + " does not hold a queue id (32 hex digits); refusing to guess one");
            }
            return id;
        }
        UUID uuid = UUID.randomUUID();
        String id = HexFormat.of().toHexDigits(uuid.getMostSignificantBits()) + HexFormat.of().toHexDigits(uuid.getLeastSignificantBits());
        Path tmp = directory.resolve("queue.id.tmp");
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(ByteBuffer.wrap((id + "\n").getBytes(StandardCharsets.US_ASCII)));
            out.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        syncDirectory(directory);
        return id;
    }

    static void syncDirectory(Path directory) throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }
}
