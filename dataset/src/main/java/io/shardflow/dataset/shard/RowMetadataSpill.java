package io.shardflow.dataset.shard;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The values of each row that the streaming writer stores after its tensors: sample id, device id,
 * produce time and the attributes' JSON, as UTF-8, spilled to a local file as the rows go by (tens
 * of bytes a row, while the tensors go straight into the shard file), with the widths their
 * fixed-length string datasets need measured on the way. A scratch file private to one write.
 */
final class RowMetadataSpill implements AutoCloseable {

    private static final int BUFFER = 1 << 16;

    /** One row's values, UTF-8 without the terminating NUL. */
    record Row(byte[] sampleId, byte[] deviceId, long producedAtMillis, byte[] attributes) {
    }

    private final Path file;
    private final DataOutputStream out;
    private StringWidths widths = StringWidths.NARROWEST;
    private long rows;

    RowMetadataSpill(Path file) {
        this.file = file;
        try {
            this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), BUFFER));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the spill file " + file, e);
        }
    }

    void add(SampleRow row) {
        byte[] sampleId = StringWidths.utf8(row.sampleId());
        byte[] deviceId = StringWidths.utf8(row.deviceId());
        byte[] attributes = StringWidths.utf8(ShardWriter.attributesJson(row));
        widths = new StringWidths(Math.max(widths.sampleId(), sampleId.length + 1), Math.max(widths.deviceId(), deviceId.length + 1),
                Math.max(widths.attributes(), attributes.length + 1));
        try {
            write(sampleId);
            write(deviceId);
            out.writeLong(row.producedAtMillis());
            write(attributes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the spill file " + file, e);
        }
        rows++;
    }

    /** Widths of the rows added so far, as {@link StringWidths#widen} would give. */
    StringWidths widths() {
        return widths;
    }

    long rows() {
        return rows;
    }

    /** Ends writing; the rows can then be read back once, in order. */
    Iterator<Row> read() {
        try {
            out.close();
            return new Reader(new DataInputStream(new BufferedInputStream(Files.newInputStream(file), BUFFER)), rows);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the spill file " + file, e);
        }
    }

    private void write(byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** Deletes the file. */
    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            // its content is thrown away anyway
        }
        StreamingShardWriter.deleteQuietly(file);
    }

    private final class Reader implements Iterator<Row> {

        private final DataInputStream in;
        private long left;

        Reader(DataInputStream in, long rows) {
            this.in = in;
            this.left = rows;
        }

        @Override
        public boolean hasNext() {
            return left > 0;
        }

        @Override
        public Row next() {
            if (left == 0) {
                throw new NoSuchElementException();
            }
            try {
                Row row = new Row(read(), read(), in.readLong(), read());
                if (--left == 0) {
                    in.close();
                }
                return row;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + file, e);
            }
        }

        private byte[] read() throws IOException {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return bytes;
        }
    }
}
