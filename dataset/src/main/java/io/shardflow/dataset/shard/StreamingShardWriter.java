package io.shardflow.dataset.shard;

import static io.shardflow.dataset.shard.Hdf5Ids.check;
import static org.bytedeco.hdf5.global.hdf5.H5Acreate2;
import static org.bytedeco.hdf5.global.hdf5.H5Awrite;
import static org.bytedeco.hdf5.global.hdf5.H5F_ACC_TRUNC;
import static org.bytedeco.hdf5.global.hdf5.H5Fcreate;
import static org.bytedeco.hdf5.global.hdf5.H5Gcreate2;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_FILE_CREATE_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_GROUP_CREATE_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_DEFAULT;
import static org.bytedeco.hdf5.global.hdf5.H5Pcreate;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_obj_track_times;
import static org.bytedeco.hdf5.global.hdf5.H5S_SCALAR;
import static org.bytedeco.hdf5.global.hdf5.H5Screate;
import static org.bytedeco.hdf5.global.hdf5.H5T_CSET_UTF8;
import static org.bytedeco.hdf5.global.hdf5.H5T_C_S1_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_IEEE_F32LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_IEEE_F64LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_I16LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_I32LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_I64LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_I8LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_U16LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_U32LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_U64LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STD_U8LE_g;
import static org.bytedeco.hdf5.global.hdf5.H5T_STR_NULLTERM;
import static org.bytedeco.hdf5.global.hdf5.H5Tcopy;
import static org.bytedeco.hdf5.global.hdf5.H5Tset_cset;
import static org.bytedeco.hdf5.global.hdf5.H5Tset_ebias;
import static org.bytedeco.hdf5.global.hdf5.H5Tset_fields;
import static org.bytedeco.hdf5.global.hdf5.H5Tset_size;
import static org.bytedeco.hdf5.global.hdf5.H5Tset_strpad;
import static org.bytedeco.hdf5.global.hdf5.H5open;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.Compression;
import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.hdf5.global.hdf5;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a shard through the HDF Group's C library, streaming: rows go one by one into chunked
 * datasets with an unlimited first dimension ({@link Hdf5Column}), so the memory held is one chunk
 * (about 1 MiB) per dataset, never the shard. Same paths, types and attributes as {@link ShardWriter}.
 *
 * <p>Fixed-length strings need their length before the first row is written. It is taken in a
 * first pass over the rows (the same pass that validates them): the rows are already on local disk
 * or in memory, and a pass that only measures strings costs little next to writing the tensors,
 * while a length bound set in advance (a setting) would either pad every id to it or refuse rows
 * ingest-app accepted. Like jHDF, a string column is as wide as its longest UTF-8 value plus the
 * terminating NUL.
 *
 * <p>No clock goes into the file (object time tracking is off on the file, the group and every
 * dataset), so the same rows give the same bytes (docs/ARCHITECTURE.md, invariant 2); the bytes
 * differ from {@link ShardWriter}'s, whose files are laid out by another library.
 */
public final class StreamingShardWriter implements ShardFileWriter {

    private static final Logger log = LoggerFactory.getLogger(StreamingShardWriter.class);
    /** The C library is not built thread-safe: every call into it, from any writer in the process, holds this. */
    static final Object LIBRARY = new Object();

    static {
        check(H5open(), "H5open");
    }

    @Override
    public void write(Path target, DatasetSpec spec, ShardId id, List<SampleRow> rows) {
        ShardWriter.validate(spec, id, rows);
        writeComplete(target, spec, id, ShardLayout.of(spec, rows), rows);
    }

    /**
     * Rows given one by one go to a spill file next to the target while their layout is measured, and
     * are written from there on finish (see {@link SpillingShardAppender}): the row count is not known
     * before the last row. The heap holds one row and one chunk per dataset.
     */
    @Override
    public ShardAppender open(Path target, DatasetSpec spec, ShardId id) {
        return new SpillingShardAppender(this, target, spec, id);
    }

    /**
     * With the row count known (the sink has it from the seal marker) and no variable tensor (whose
     * offsets must be known before its first value), rows go straight into the file
     * ({@link Hdf5ShardFile}): the tensor bytes are written once. Otherwise as {@link #open(Path, DatasetSpec, ShardId)}.
     * Both write the same bytes for the same rows.
     */
    @Override
    public ShardAppender open(Path target, DatasetSpec spec, ShardId id, long rows) {
        if (rows < 1 || spec.tensors().stream().anyMatch(TensorSpec::isVariable)) {
            return open(target, spec, id);
        }
        return new DirectShardAppender(target, spec, id, rows);
    }

    /**
     * In memory on the same terms as {@link #open(Path, DatasetSpec, ShardId, long)} writes straight into
     * the file (row count known, no variable tensor), for uncompressed and LZF columns, whose chunks are
     * stored as this writer made them; the same rows give the same bytes as that file. gzip chunks pass
     * through the library's chunk cache, which lays an open file's image out otherwise than the closed
     * file: those shards are built on disk, so a replay on either path gives the same digest.
     */
    @Override
    public Optional<ShardImageAppender> openInMemory(Path scratch, DatasetSpec spec, ShardId id, long rows, long expectedBytes) {
        if (rows < 1 || spec.tensors().stream().anyMatch(TensorSpec::isVariable)
                || spec.compression().codec() == Compression.Codec.GZIP) {
            return Optional.empty();
        }
        return Optional.of(new InMemoryShardAppender(scratch, spec, id, rows, expectedBytes));
    }

    /** Writes validated {@code rows}, which match {@code layout}; reads them once, in order. */
    void writeComplete(Path target, DatasetSpec spec, ShardId id, ShardLayout layout, Iterable<SampleRow> rows) {
        ShardWriter.prepareTarget(target);
        long started = System.nanoTime();
        boolean complete = false;
        try (Hdf5ShardFile file = new Hdf5ShardFile(target, spec, id, layout.rows(), layout.variables())) {
            rows.forEach(file::append);
            file.finish();
            complete = true;
        } finally {
            if (!complete) {
                deleteQuietly(target);
            }
        }
        log.debug("Wrote shard {} with {} rows to {} in {} ms (HDF5 C library)", id, layout.rows(), target,
                (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * A variable tensor's group (FORMAT.md): its offsets and shapes are written here at once (a few
     * bytes per row), and the returned values column takes the rows' elements as they stream by.
     */
    static Hdf5Column variableColumns(Hdf5Ids ids, long tensors, long gcpl, VariableTensor layout, long type,
            DatasetSpec spec, List<Hdf5Column> columns) {
        TensorSpec tensor = layout.tensor();
        long group = ids.keep(H5Gcreate2(tensors, tensor.name(), H5P_DEFAULT, gcpl, H5P_DEFAULT), hdf5::H5Gclose,
                "H5Gcreate2(" + tensor.name() + ")");
        writeStringAttribute(ids, group, ShardFormat.ATTR_DTYPE, tensor.dtype().numpyName());
        writeStringAttribute(ids, group, ShardFormat.ATTR_SHAPE, tensor.encoding() == null ? tensor.shapeText() : "");
        if (tensor.encoding() != null) {
            writeStringAttribute(ids, group, ShardFormat.ATTR_ENCODING, tensor.encoding());
        }
        Hdf5Column offsets = track(columns, new Hdf5Column(ids, group, ShardFormat.DS_OFFSETS, H5T_STD_I64LE_g(), List.of(),
                Long.BYTES, layout.offsets().length));
        offsets.appendRows(littleEndianLongs(layout.offsets()));
        if (layout.shapes() != null) {
            int rank = tensor.shape().size();
            Hdf5Column shapes = track(columns, new Hdf5Column(ids, group, ShardFormat.DS_SHAPES, H5T_STD_I64LE_g(),
                    List.of(rank), (long) rank * Long.BYTES, layout.shapes().length));
            shapes.appendRows(littleEndianLongs(layout.flatShapes()));
        }
        return new Hdf5Column(ids, group, ShardFormat.DS_VALUES, type, List.of(), tensor.dtype().itemSize(),
                layout.totalElements(), spec.compression(), tensor.dtype().itemSize());
    }

    private static byte[] littleEndianLongs(long[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asLongBuffer().put(values);
        return bytes.array();
    }

    private static Hdf5Column track(List<Hdf5Column> columns, Hdf5Column column) {
        columns.add(column);
        return column;
    }

    static Hdf5Column stringColumn(Hdf5Ids ids, long file, String name, int width, long rows) {
        return new Hdf5Column(ids, file, name, stringType(ids, width, name), List.of(), width, rows);
    }

    static void writeRootAttributes(Hdf5Ids ids, long file, DatasetSpec spec, ShardId id, long rows) {
        writeAttribute(ids, file, ShardFormat.ATTR_FORMAT, H5T_STD_I32LE_g(),
                littleEndian(Integer.BYTES).putInt(0, ShardFormat.FORMAT_VERSION));
        writeStringAttribute(ids, file, ShardFormat.ATTR_DATASET, id.dataset());
        writeStringAttribute(ids, file, ShardFormat.ATTR_VERSION, id.version());
        writeStringAttribute(ids, file, ShardFormat.ATTR_SHARD_ID, id.toString());
        writeAttribute(ids, file, ShardFormat.ATTR_SAMPLE_COUNT, H5T_STD_I64LE_g(), littleEndian(Long.BYTES).putLong(0, rows));
        writeStringAttribute(ids, file, ShardFormat.ATTR_SPEC_FINGERPRINT, spec.fingerprint());
    }

    /** A scalar fixed-length UTF-8 string attribute, NUL-terminated as jHDF writes it. */
    static void writeStringAttribute(Hdf5Ids ids, long owner, String name, String value) {
        byte[] bytes = StringWidths.utf8(value);
        ByteBuffer padded = ByteBuffer.allocateDirect(bytes.length + 1).put(bytes).put((byte) 0);
        writeAttribute(ids, owner, name, stringType(ids, bytes.length + 1, name), padded);
    }

    private static void writeAttribute(Hdf5Ids ids, long owner, String name, long type, ByteBuffer value) {
        long space = ids.keep(H5Screate(H5S_SCALAR), hdf5::H5Sclose, "H5Screate(attribute " + name + ")");
        long attribute = ids.keep(H5Acreate2(owner, name, type, space, H5P_DEFAULT, H5P_DEFAULT), hdf5::H5Aclose,
                "H5Acreate2(" + name + ")");
        check(H5Awrite(attribute, type, new Pointer(value.position(0))), "H5Awrite(" + name + ")");
    }

    private static ByteBuffer littleEndian(int bytes) {
        return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static long stringType(Hdf5Ids ids, int width, String usedBy) {
        long type = ids.keep(H5Tcopy(H5T_C_S1_g()), hdf5::H5Tclose, "H5Tcopy(string type for " + usedBy + ")");
        check(H5Tset_size(type, width), "H5Tset_size(" + usedBy + ")");
        check(H5Tset_strpad(type, H5T_STR_NULLTERM), "H5Tset_strpad(" + usedBy + ")");
        check(H5Tset_cset(type, H5T_CSET_UTF8), "H5Tset_cset(" + usedBy + ")");
        return type;
    }

    /**
     * Little-endian in the file, as the rows' bytes are: the library copies them without conversion.
     * bfloat16 is stored as its uint16 bits, string and bytes as uint8 values (FORMAT.md).
     */
    static long fileType(Hdf5Ids ids, DType dtype) {
        return switch (dtype) {
            case BOOL, UINT8, STRING, BYTES -> H5T_STD_U8LE_g();
            case INT8 -> H5T_STD_I8LE_g();
            case INT16 -> H5T_STD_I16LE_g();
            case INT32 -> H5T_STD_I32LE_g();
            case INT64 -> H5T_STD_I64LE_g();
            case UINT16, BFLOAT16 -> H5T_STD_U16LE_g();
            case UINT32 -> H5T_STD_U32LE_g();
            case UINT64 -> H5T_STD_U64LE_g();
            case FLOAT16 -> halfFloat(ids);
            case FLOAT32 -> H5T_IEEE_F32LE_g();
            case FLOAT64 -> H5T_IEEE_F64LE_g();
        };
    }

    /**
     * IEEE 754 binary16, little-endian: the library has no predefined one, so it is derived from
     * float32 the way h5py defines it (sign bit 15, exponent 10-14, mantissa 0-9, bias 15); h5py
     * and PyTables map it to numpy float16.
     */
    private static long halfFloat(Hdf5Ids ids) {
        long type = ids.keep(H5Tcopy(H5T_IEEE_F32LE_g()), hdf5::H5Tclose, "H5Tcopy(float16)");
        check(H5Tset_fields(type, 15, 10, 5, 0, 10), "H5Tset_fields(float16)");
        check(H5Tset_size(type, 2), "H5Tset_size(float16)");
        check(H5Tset_ebias(type, 15), "H5Tset_ebias(float16)");
        return type;
    }

    static void deleteQuietly(Path target) {
        try {
            Files.deleteIfExists(target);
        } catch (IOException e) {
            log.warn("Cannot delete the incomplete shard file {}", target, e);
        }
    }
}
