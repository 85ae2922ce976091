package io.shardflow.dataset.shard;

import com.ning.compress.lzf.impl.VanillaChunkEncoder;
import io.jhdf.filter.Filter;
import io.jhdf.filter.LzfFilter;
import java.util.Arrays;

/**
 * The LZF filter h5py ships (HDF5 filter id 32000), for writing: each chunk is one raw LZF block,
 * as h5py's {@code lzf_filter.c} compresses it, so h5py, PyTables and jHDF read it back.
 * compress-lzf does the compression; its framed format is not what HDF5 stores, so the raw block
 * comes from the encoder's own block routine.
 */
final class LzfEncodingFilter implements Filter {

    static final int ID = 32000;
    /** h5py's {@code H5PY_FILTER_LZF_VERSION} and liblzf's {@code LZF_VERSION}, its first two client values. */
    private static final int H5PY_LZF_FILTER_VERSION = 4;
    private static final int LZF_VERSION = 0x0105;
    /** Below this the encoder does not try; a literal run is the whole block. */
    private static final int MIN_INPUT = 16;
    private static final int MAX_LITERAL = 32;

    private final LzfFilter decoder = new LzfFilter();

    /** The client values h5py writes: filter version, LZF version, uncompressed chunk bytes (the reader's buffer). */
    static int[] clientData(long chunkBytes) {
        return new int[] {H5PY_LZF_FILTER_VERSION, LZF_VERSION, Math.toIntExact(chunkBytes)};
    }

    @Override
    public int getId() {
        return ID;
    }

    @Override
    public String getName() {
        return "lzf";
    }

    @Override
    public byte[] decode(byte[] encoded, int[] filterData) {
        return decoder.decode(encoded, filterData);
    }

    @Override
    public byte[] encode(byte[] data, int[] filterData) {
        return compress(data);
    }

    /** One raw LZF block of {@code data}; its length may exceed the input's for incompressible data. */
    static byte[] compress(byte[] data) {
        byte[] out = new byte[data.length + data.length / MAX_LITERAL + MIN_INPUT + 8];
        if (data.length < MIN_INPUT) {
            return literals(data, out);
        }
        int end = new BlockEncoder(data.length).compress(data, out);
        return Arrays.copyOf(out, end);
    }

    private static byte[] literals(byte[] data, byte[] out) {
        int at = 0;
        for (int from = 0; from < data.length; from += MAX_LITERAL) {
            int run = Math.min(MAX_LITERAL, data.length - from);
            out[at++] = (byte) (run - 1);
            System.arraycopy(data, from, out, at, run);
            at += run;
        }
        return Arrays.copyOf(out, at);
    }

    /** Opens compress-lzf's raw block routine, which its public API only uses inside framed chunks. */
    private static final class BlockEncoder extends VanillaChunkEncoder {

        BlockEncoder(int length) {
            super(length);
        }

        int compress(byte[] in, byte[] out) {
            return tryCompress(in, 0, in.length, out, 0);
        }
    }
}
