package io.shardflow.dataset.shard;

import static io.shardflow.dataset.shard.Hdf5Ids.check;
import static org.bytedeco.hdf5.global.hdf5.H5D_FILL_TIME_ALLOC;
import static org.bytedeco.hdf5.global.hdf5.H5Dcreate2;
import static org.bytedeco.hdf5.global.hdf5.H5Dget_space;
import static org.bytedeco.hdf5.global.hdf5.H5Dset_extent;
import static org.bytedeco.hdf5.global.hdf5.H5Dwrite;
import static org.bytedeco.hdf5.global.hdf5.H5Dwrite_chunk;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_deflate;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_filter;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_shuffle;
import static org.bytedeco.hdf5.global.hdf5.H5Z_FLAG_OPTIONAL;
import static org.bytedeco.hdf5.global.hdf5.H5P_CLS_DATASET_CREATE_ID_g;
import static org.bytedeco.hdf5.global.hdf5.H5P_DEFAULT;
import static org.bytedeco.hdf5.global.hdf5.H5Pcreate;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_chunk;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_fill_time;
import static org.bytedeco.hdf5.global.hdf5.H5Pset_obj_track_times;
import static org.bytedeco.hdf5.global.hdf5.H5S_SELECT_SET;
import static org.bytedeco.hdf5.global.hdf5.H5Screate_simple;
import static org.bytedeco.hdf5.global.hdf5.H5Sselect_hyperslab;

import io.jhdf.filter.ByteShuffleFilter;
import io.shardflow.dataset.spec.Compression;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.bytedeco.hdf5.global.hdf5;
import org.bytedeco.javacpp.BytePointer;

/**
 * One dataset of shape (rows, *rowShape) that grows by appending rows: chunked, with an unlimited
 * first dimension. Rows collect in a native buffer of exactly one chunk; a full buffer is written
 * as that whole chunk (extend, select the new rows, write), so every chunk is written once and the
 * memory held is one chunk, however many rows the dataset gets.
 *
 * <p>Compressed columns run the shuffle filter and then gzip (the library's deflate) or LZF. The
 * library has no LZF filter, so LZF chunks are shuffled and compressed here and stored with
 * {@code H5Dwrite_chunk}, bypassing the pipeline; the dataset still declares the filter (optional,
 * id 32000, h5py's client values), which is all a reader needs.
 *
 * <p>Uncompressed chunks go the same way, straight from the buffer to the file: the buffer already
 * holds the chunk's bytes as stored (memory type = file type, no filter), so the library's
 * {@code H5Dwrite} would only copy them into its chunk cache before writing them, a pass over every
 * tensor byte for nothing. A chunk's unused tail is zeroed first, the fill value {@code H5Dwrite}
 * would have put there, so a reader sees the same values.
 */
final class Hdf5Column implements AutoCloseable {

    private static final long UNLIMITED = -1L; // H5S_UNLIMITED, (hsize_t) -1
    private static final long MAX_CHUNK_BYTES = (1L << 32) - 1; // HDF5's limit for one chunk

    private static final ByteShuffleFilter SHUFFLE = new ByteShuffleFilter();
    private static final byte[] ZEROS = new byte[1 << 16];

    private final String name;
    private final long dataset;
    private final long memoryType;
    private final long[] rowShape;
    private final long rowBytes;
    private final long chunkRows;
    private final long elementBytes;
    private final boolean lzf;
    private final boolean unfiltered;
    private final BytePointer buffer;
    private long buffered;
    private long written;

    /**
     * @param location   file or group the dataset is created in (its ids stay in {@code ids})
     * @param type       the dataset's type, also the in-memory type of the appended bytes
     * @param rowShape   dimensions of one row (empty for one value per row)
     * @param rowBytes   bytes of one row in memory
     * @param totalRows  rows the dataset will get: chunks never exceed it, so a small shard is not
     *                   padded to a whole default-sized chunk
     */
    Hdf5Column(Hdf5Ids ids, long location, String name, long type, List<Integer> rowShape, long rowBytes, long totalRows) {
        this(ids, location, name, type, rowShape, rowBytes, totalRows, Compression.NONE, rowBytes);
    }

    /**
     * @param compression  filters of the dataset (metadata columns stay uncompressed)
     * @param elementBytes size of one element, the unit the shuffle filter regroups
     */
    Hdf5Column(Hdf5Ids ids, long location, String name, long type, List<Integer> rowShape, long rowBytes, long totalRows,
            Compression compression, long elementBytes) {
        if (rowBytes > MAX_CHUNK_BYTES) {
            throw new IllegalArgumentException("dataset '" + name + "' has rows of " + rowBytes
                    + " bytes; one HDF5 chunk holds at most " + MAX_CHUNK_BYTES);
        }
        this.name = name;
        this.memoryType = type;
        this.rowShape = rowShape.stream().mapToLong(Integer::longValue).toArray();
        this.rowBytes = rowBytes;
        this.chunkRows = ChunkSizes.chunkRows(rowBytes, totalRows);
        this.elementBytes = elementBytes;
        this.lzf = compression.codec() == Compression.Codec.LZF;
        this.unfiltered = compression.isNone();
        long space = ids.keep(H5Screate_simple(rank(), dims(0), dims(UNLIMITED)), hdf5::H5Sclose,
                "H5Screate_simple(" + name + ")");
        long dcpl = ids.keep(H5Pcreate(H5P_CLS_DATASET_CREATE_ID_g()), hdf5::H5Pclose, "H5Pcreate(dataset " + name + ")");
        check(H5Pset_chunk(dcpl, rank(), dims(chunkRows)), "H5Pset_chunk(" + name + ")");
        // No modification times in object headers: the same rows must give the same bytes.
        check(H5Pset_obj_track_times(dcpl, false), "H5Pset_obj_track_times(" + name + ")");
        // The unused tail of the last chunk is written as fill (zeros), never as whatever memory held.
        check(H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC), "H5Pset_fill_time(" + name + ")");
        if (!compression.isNone()) {
            check(H5Pset_shuffle(dcpl), "H5Pset_shuffle(" + name + ")");
            if (lzf) {
                check(H5Pset_filter(dcpl, LzfEncodingFilter.ID, H5Z_FLAG_OPTIONAL, 3,
                        LzfEncodingFilter.clientData(chunkRows * rowBytes)), "H5Pset_filter(lzf, " + name + ")");
            } else {
                check(H5Pset_deflate(dcpl, compression.level()), "H5Pset_deflate(" + name + ")");
            }
        }
        BytePointer utf8Name = new BytePointer(name, StandardCharsets.UTF_8);
        this.dataset = ids.keep(H5Dcreate2(location, utf8Name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), hdf5::H5Dclose,
                "H5Dcreate2(" + name + ")");
        this.buffer = new BytePointer(chunkRows * rowBytes);
    }

    long dataset() {
        return dataset;
    }

    /** Appends one row of exactly {@code rowBytes} bytes, in the dataset type's memory layout. */
    void append(byte[] row) {
        if (row.length != rowBytes) {
            throw new IllegalArgumentException("dataset '" + name + "' takes rows of " + rowBytes + " bytes, got " + row.length);
        }
        buffer.position(buffered * rowBytes).put(row, 0, row.length);
        buffered++;
        if (buffered == chunkRows) {
            flush();
        }
    }

    /**
     * Appends whole rows given as one run of bytes (a variable tensor's elements): split at chunk
     * boundaries, so the buffer still holds at most one chunk.
     */
    void appendRows(byte[] bytes) {
        if (bytes.length % rowBytes != 0) {
            throw new IllegalArgumentException("dataset '" + name + "' takes rows of " + rowBytes + " bytes, got a run of "
                    + bytes.length);
        }
        int at = 0;
        while (at < bytes.length) {
            long room = (chunkRows - buffered) * rowBytes;
            int take = (int) Math.min(room, bytes.length - at);
            buffer.position(buffered * rowBytes).put(bytes, at, take);
            at += take;
            buffered += take / rowBytes;
            if (buffered == chunkRows) {
                flush();
            }
        }
    }

    /** Appends one row of at most {@code rowBytes} bytes, padded with zero bytes (fixed-length strings). */
    void appendPadded(byte[] row) {
        append(row.length == rowBytes ? row : Arrays.copyOf(row, Math.toIntExact(rowBytes)));
    }

    /** Writes the buffered rows at the end of the dataset (holding the library's lock, see {@link StreamingShardWriter#LIBRARY}). */
    void flush() {
        if (buffered == 0) {
            return;
        }
        synchronized (StreamingShardWriter.LIBRARY) {
            writeBuffered();
        }
    }

    private void writeBuffered() {
        check(H5Dset_extent(dataset, dims(written + buffered)), "H5Dset_extent(" + name + ")");
        long[] start = dims(written);
        Arrays.fill(start, 1, start.length, 0);
        if (lzf) {
            writeLzfChunk(start);
        } else if (unfiltered && written % chunkRows == 0) {
            writeRawChunk(start);
        } else {
            // gzip runs in the library's pipeline; rows not starting a chunk (only after a partial flush) need its selection
            writeSelected(start);
        }
        written += buffered;
        buffered = 0;
    }

    private void writeSelected(long[] start) {
        try (Hdf5Ids ids = new Hdf5Ids()) {
            long fileSpace = ids.keep(H5Dget_space(dataset), hdf5::H5Sclose, "H5Dget_space(" + name + ")");
            check(H5Sselect_hyperslab(fileSpace, H5S_SELECT_SET, start, null, dims(buffered), (long[]) null),
                    "H5Sselect_hyperslab(" + name + ")");
            long memorySpace = ids.keep(H5Screate_simple(rank(), dims(buffered), (long[]) null), hdf5::H5Sclose,
                    "H5Screate_simple(" + name + " rows)");
            check(H5Dwrite(dataset, memoryType, memorySpace, fileSpace, H5P_DEFAULT, buffer.position(0)), "H5Dwrite(" + name + ")");
        }
    }

    /** The buffered rows as one whole uncompressed chunk, the tail past them zero (the fill value), written as they lie in the buffer. */
    private void writeRawChunk(long[] start) {
        long chunkBytes = chunkRows * rowBytes;
        for (long at = buffered * rowBytes; at < chunkBytes; at += ZEROS.length) {
            buffer.position(at).put(ZEROS, 0, (int) Math.min(ZEROS.length, chunkBytes - at));
        }
        check(H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, start, chunkBytes, buffer.position(0)), "H5Dwrite_chunk(" + name + ")");
    }

    /** The buffered rows as one whole chunk (the tail past them zero, as fill), shuffled and LZF-compressed. */
    private void writeLzfChunk(long[] start) {
        byte[] chunk = new byte[Math.toIntExact(chunkRows * rowBytes)];
        buffer.position(0).get(chunk, 0, Math.toIntExact(buffered * rowBytes));
        byte[] compressed = LzfEncodingFilter.compress(SHUFFLE.encode(chunk, new int[] {Math.toIntExact(elementBytes)}));
        try (BytePointer data = new BytePointer(compressed)) {
            check(H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, start, compressed.length, data), "H5Dwrite_chunk(" + name + ")");
        }
    }

    long rowsWritten() {
        return written;
    }

    /** Frees the native buffer; the dataset id itself belongs to the scope that created it. */
    @Override
    public void close() {
        buffer.close();
    }

    private int rank() {
        return rowShape.length + 1;
    }

    /** (first, *rowShape). */
    private long[] dims(long first) {
        long[] dims = new long[rank()];
        dims[0] = first;
        System.arraycopy(rowShape, 0, dims, 1, rowShape.length);
        return dims;
    }
}
