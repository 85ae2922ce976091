package io.shardflow.dataset.shard;

import static io.shardflow.dataset.shard.Hdf5Ids.check;
import static org.bytedeco.hdf5.global.hdf5.H5F_ACC_TRUNC;
import static org.bytedeco.hdf5.global.hdf5.H5F_SCOPE_LOCAL;
import static org.bytedeco.hdf5.global.hdf5.H5Fcreate;
import static org.bytedeco.hdf5.global.hdf5.H5Fflush;
import static org.bytedeco.hdf5.global.hdf5.H5Fget_file_image;
import static org.bytedeco.hdf5.global.hdf5.H5Gcreate2;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_FILE_ACCESS_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_FILE_CREATE_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_GROUP_CREATE_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_DEFAULT;
import static org.bytedeco.hdf5.global.hdf5.H5Pcreate;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_fapl_core;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_obj_track_times;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_I64LE_g;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.bytedeco.hdf5.global.hdf5;
import org.bytedeco.javacpp.BytePointer;

/**
 * One shard file being written through the HDF Group's C library, rows streaming in: the file and
 * its tensor datasets are created first (their chunking from the row count), each row's tensors go
 * straight into them a chunk at a time, and its sample id, device id, produce time and attributes,
 * a few bytes each, into a {@link RowMetadataSpill}; on {@link #finish} the four per-row datasets are
 * created, as wide as their longest value, and written from the spill. The tensor bytes are thus
 * written once, into the shard file, whatever the shard size, and the heap holds one row plus one
 * chunk per dataset. The same rows in the same order always make the same calls, so the same bytes
 * (docs/ARCHITECTURE.md, invariant 2).
 *
 * <p>In memory (the library's core driver without a backing store) the same calls build the same
 * bytes in a buffer the library grows, and {@link #image} copies them out once finished: no page
 * cache write, no read back, no unlink.
 *
 * <p>The library is not built thread-safe: every call into it holds {@link StreamingShardWriter#LIBRARY},
 * one short call group at a time (creating, a chunk's write, closing), so two shards can be built at
 * once, each waiting for the library only while it writes.
 */
final class Hdf5ShardFile implements AutoCloseable {

    private final DatasetSpec spec;
    private final long rows;
    private final Hdf5Ids ids = new Hdf5Ids();
    private final List<Hdf5Column> columns = new ArrayList<>();
    private final List<Hdf5Column> tensorColumns = new ArrayList<>();
    private final RowMetadataSpill metadata;
    private final long file;
    private long appended;

    /**
     * @param rows      the rows the shard will get (chunks never exceed it)
     * @param variables each variable tensor's layout (offsets, shapes), known before its first value
     */
    Hdf5ShardFile(Path target, DatasetSpec spec, ShardId id, long rows, Map<String, VariableTensor> variables) {
        this(target, spec, id, rows, variables, 0);
    }

    /**
     * @param target          the file on disk, or with {@code memoryIncrement > 0} only its name (the
     *                        per-row spill still goes beside it)
     * @param memoryIncrement 0 to write {@code target}; otherwise the file is built in memory, grown by
     *                        this many bytes at a time (about the expected size: one allocation)
     */
    Hdf5ShardFile(Path target, DatasetSpec spec, ShardId id, long rows, Map<String, VariableTensor> variables,
            long memoryIncrement) {
        this.spec = spec;
        this.rows = rows;
        this.metadata = new RowMetadataSpill(target.resolveSibling(target.getFileName() + ".meta"));
        try {
            synchronized (StreamingShardWriter.LIBRARY) {
                long fcpl = ids.keep(H5Pcreate(H5P_CLS_FILE_CREATE_ID_g()), hdf5::H5Pclose, "H5Pcreate(file)");
                // Without this the root group's object header records its creation time.
                check(H5Pset_obj_track_times(fcpl, false), "H5Pset_obj_track_times(file)");
                BytePointer path = new BytePointer(target.toString(), StandardCharsets.UTF_8);
                long fapl = H5P_DEFAULT;
                if (memoryIncrement > 0) {
                    fapl = ids.keep(H5Pcreate(H5P_CLS_FILE_ACCESS_ID_g()), hdf5::H5Pclose, "H5Pcreate(file access)");
                    check(H5Pset_fapl_core(fapl, memoryIncrement, false), "H5Pset_fapl_core(" + target + ")");
                }
                file = ids.keep(H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl), hdf5::H5Fclose, "H5Fcreate(" + target + ")");
                StreamingShardWriter.writeRootAttributes(ids, file, spec, id, rows);
                long gcpl = ids.keep(H5Pcreate(H5P_CLS_GROUP_CREATE_ID_g()), hdf5::H5Pclose, "H5Pcreate(group)");
                check(H5Pset_obj_track_times(gcpl, false), "H5Pset_obj_track_times(group)");
                long tensors = ids.keep(H5Gcreate2(file, ShardFormat.GROUP_TENSORS, H5P_DEFAULT, gcpl, H5P_DEFAULT), hdf5::H5Gclose,
                        "H5Gcreate2(" + ShardFormat.GROUP_TENSORS + ")");
                for (TensorSpec tensor : spec.tensors()) {
                    long type = StreamingShardWriter.fileType(ids, tensor.dtype());
                    Hdf5Column column;
                    if (tensor.isVariable()) {
                        column = track(StreamingShardWriter.variableColumns(ids, tensors, gcpl, variables.get(tensor.name()), type, spec,
                                columns));
                    } else {
                        column = track(new Hdf5Column(ids, tensors, tensor.name(), type, tensor.shape(), tensor.byteLength(), rows,
                                spec.compression(), tensor.dtype().itemSize()));
                        StreamingShardWriter.writeStringAttribute(ids, column.dataset(), ShardFormat.ATTR_DTYPE, tensor.dtype().numpyName());
                    }
                    tensorColumns.add(column);
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Writes the row's tensors (a chunk whenever one fills) and spills its per-row values. */
    void append(SampleRow row) {
        if (appended == rows) {
            throw new IllegalStateException("the shard was announced with " + rows + " rows; row " + (rows + 1) + " came");
        }
        for (int t = 0; t < tensorColumns.size(); t++) {
            TensorSpec tensor = spec.tensors().get(t);
            byte[] value = row.tensors().get(tensor.name());
            if (tensor.isVariable()) {
                tensorColumns.get(t).appendRows(value);
            } else {
                tensorColumns.get(t).append(value);
            }
        }
        metadata.add(row);
        appended++;
    }

    /** Writes the last chunks and the per-row datasets; the file is complete once {@link #close} has closed it. */
    void finish() {
        if (appended != rows) {
            throw new IllegalStateException("the shard was announced with " + rows + " rows but got " + appended);
        }
        StringWidths widths = metadata.widths();
        synchronized (StreamingShardWriter.LIBRARY) {
            for (Hdf5Column column : tensorColumns) {
                column.flush();
            }
            Hdf5Column sampleIds = track(StreamingShardWriter.stringColumn(ids, file, ShardFormat.DS_SAMPLE_ID, widths.sampleId(), rows));
            Hdf5Column deviceIds = track(StreamingShardWriter.stringColumn(ids, file, ShardFormat.DS_DEVICE_ID, widths.deviceId(), rows));
            Hdf5Column producedAt = track(new Hdf5Column(ids, file, ShardFormat.DS_PRODUCED_AT, H5T_STD_I64LE_g(), List.of(), Long.BYTES,
                    rows));
            Hdf5Column attributes = track(StreamingShardWriter.stringColumn(ids, file, ShardFormat.DS_ATTRIBUTES, widths.attributes(), rows));
            byte[] millis = new byte[Long.BYTES];
            ByteBuffer millisView = ByteBuffer.wrap(millis).order(ByteOrder.LITTLE_ENDIAN);
            for (Iterator<RowMetadataSpill.Row> each = metadata.read(); each.hasNext(); ) {
                RowMetadataSpill.Row row = each.next();
                sampleIds.appendPadded(row.sampleId());
                deviceIds.appendPadded(row.deviceId());
                millisView.putLong(0, row.producedAtMillis());
                producedAt.append(millis);
                attributes.appendPadded(row.attributes());
            }
            for (Hdf5Column column : List.of(sampleIds, deviceIds, producedAt, attributes)) {
                column.flush();
            }
        }
    }

    /** The finished file's bytes, copied out of the library's buffer (in-memory files only, after {@link #finish}). */
    ShardImage image() {
        synchronized (StreamingShardWriter.LIBRARY) {
            check(H5Fflush(file, H5F_SCOPE_LOCAL), "H5Fflush");
            long size = H5Fget_file_image(file, null, 0);
            if (size < 0) {
                throw new IllegalStateException("HDF5 H5Fget_file_image failed (status " + size + ")");
            }
            BytePointer memory = new BytePointer(size);
            long copied = H5Fget_file_image(file, memory, size);
            if (copied != size) {
                memory.close();
                throw new IllegalStateException("HDF5 H5Fget_file_image copied " + copied + " of " + size + " bytes");
            }
            return new ShardImage(memory, size);
        }
    }

    private Hdf5Column track(Hdf5Column column) {
        columns.add(column);
        return column;
    }

    /** Closes the file (complete after {@link #finish}, to be deleted otherwise) and frees the chunk buffers and the spill. */
    @Override
    public void close() {
        try {
            synchronized (StreamingShardWriter.LIBRARY) {
                ids.close();
            }
        } finally {
            columns.forEach(Hdf5Column::close);
            metadata.close();
        }
    }
}
