package io.shardflow.dataset.shard;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Rows written one after the other to a local file and read back in the same order, each whole
 * (length-prefixed fields). A scratch format private to one write: never kept, never read by anyone else.
 */
final class RowSpill implements AutoCloseable {

    private static final int BUFFER = 1 << 16;

    private final Path file;
    private final DataOutputStream out;
    private long rows;

    RowSpill(Path file) {
        this.file = file;
        try {
            this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), BUFFER));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the spill file " + file, e);
        }
    }

    void add(SampleRow row) {
        try {
            writeString(row.sampleId());
            writeString(row.deviceId());
            out.writeLong(row.producedAtMillis());
            out.writeInt(row.attributes().size());
            for (Map.Entry<String, String> attribute : row.attributes().entrySet()) {
                writeString(attribute.getKey());
                writeString(attribute.getValue());
            }
            out.writeInt(row.tensors().size());
            for (Map.Entry<String, byte[]> tensor : row.tensors().entrySet()) {
                writeString(tensor.getKey());
                out.writeInt(tensor.getValue().length);
                out.write(tensor.getValue());
            }
            out.writeInt(row.shapes().size());
            for (Map.Entry<String, List<Integer>> shape : row.shapes().entrySet()) {
                writeString(shape.getKey());
                out.writeInt(shape.getValue().size());
                for (int dim : shape.getValue()) {
                    out.writeInt(dim);
                }
            }
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the spill file " + file, e);
        }
    }

    /** Ends writing; the rows can then be read back, once per call. */
    Iterable<SampleRow> rows() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the spill file " + file, e);
        }
        return () -> new Reader(rows);
    }

    /** Deletes the file. */
    @Override
    public void close() {
        try {
            out.close();
        } catch (IOException e) {
            // Its content is thrown away anyway.
        }
        StreamingShardWriter.deleteQuietly(file);
    }

    private void writeString(String value) throws IOException {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private final class Reader implements Iterator<SampleRow> {

        private final DataInputStream in;
        private long left;

        Reader(long rows) {
            this.left = rows;
            try {
                this.in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), BUFFER));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + file, e);
            }
        }

        @Override
        public boolean hasNext() {
            return left > 0;
        }

        @Override
        public SampleRow next() {
            if (left == 0) {
                throw new NoSuchElementException();
            }
            try {
                SampleRow row = read();
                if (--left == 0) {
                    in.close();
                }
                return row;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the spill file " + file, e);
            }
        }

        private SampleRow read() throws IOException {
            String sampleId = readString();
            String deviceId = readString();
            long producedAt = in.readLong();
            Map<String, String> attributes = new HashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                attributes.put(readString(), readString());
            }
            Map<String, byte[]> tensors = new HashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                String name = readString();
                byte[] bytes = new byte[in.readInt()];
                in.readFully(bytes);
                tensors.put(name, bytes);
            }
            Map<String, List<Integer>> shapes = new HashMap<>();
            for (int i = in.readInt(); i > 0; i--) {
                String name = readString();
                List<Integer> dims = new ArrayList<>();
                for (int rank = in.readInt(); rank > 0; rank--) {
                    dims.add(in.readInt());
                }
                shapes.put(name, dims);
            }
            return new SampleRow(sampleId, deviceId, producedAt, tensors, attributes, shapes);
        }

        private String readString() throws IOException {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }
}
