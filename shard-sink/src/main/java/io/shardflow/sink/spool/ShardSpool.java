package io.shardflow.sink.spool;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The on-disk spool of one open shard: its assignment records, length-prefixed, in arrival order.
 * Spooling keeps the sink's heap independent of how many shards are open at once. It is never
 * fsynced: after a crash the sink re-reads these records from Kafka, whose offsets were not moved
 * past them.
 */
public final class ShardSpool implements AutoCloseable {

    private final Path file;
    private final LongConsumer usage;
    private DataOutputStream out;
    private int records;
    private long bytes;

    ShardSpool(Path file) {
        this(file, bytes -> { });
    }

    /** @param usage told of every byte appended (positive) and released on close (negative) */
    ShardSpool(Path file, LongConsumer usage) {
        this.file = file;
        this.usage = usage;
        try {
            Files.createDirectories(file.getParent());
            this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file,
                    StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE), 1 << 16));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create spool " + file, e);
        }
    }

    public void append(byte[] record) {
        try {
            out.writeInt(record.length);
            out.write(record);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to spool " + file, e);
        }
        records++;
        bytes += record.length + Integer.BYTES;
        usage.accept(record.length + Integer.BYTES);
    }

    /** Every record appended so far, in order. */
    public List<byte[]> readAll() {
        flush();
        List<byte[]> all = new ArrayList<>(records);
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            for (int i = 0; i < records; i++) {
                byte[] record = new byte[in.readInt()];
                in.readFully(record);
                all.add(record);
            }
        } catch (EOFException e) {
            throw new IllegalStateException("spool " + file + " is shorter than its " + records + " records", e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read spool " + file, e);
        }
        return all;
    }

    public int records() {
        return records;
    }

    public long bytes() {
        return bytes;
    }

    private void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot flush spool " + file, e);
        }
    }

    /** Closes and deletes the spool file. */
    @Override
    public void close() {
        if (out == null) {
            return;
        }
        usage.accept(-bytes);
        try {
            out.close();
            out = null;
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete spool " + file, e);
        }
    }
}
