package io.shardflow.dataset.shard;

import static org.bytedeco.hdf5.global.hdf5.H5Aclose;
import static org.bytedeco.hdf5.global.hdf5.H5Dclose;
import static org.bytedeco.hdf5.global.hdf5.H5Fclose;
import static org.bytedeco.hdf5.global.hdf5.H5Gclose;
import static org.bytedeco.hdf5.global.hdf5.H5Pclose;
import static org.bytedeco.hdf5.global.hdf5.H5Sclose;
import static org.bytedeco.hdf5.global.hdf5.H5Tclose;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongToIntFunction;

/**
 * The HDF5 identifiers one piece of work opened, closed in reverse order when the scope closes,
 * whatever failed in between. Every call's status is checked: the C library reports failure only
 * through a negative return, which would otherwise be ignored and leave a half-written file.
 */
final class Hdf5Ids implements AutoCloseable {

    private record Open(long id, LongToIntFunction closer, String call) {
    }

    private final Deque<Open> open = new ArrayDeque<>();

    /** Turns a negative status into an exception naming the call. */
    static int check(int status, String call) {
        if (status < 0) {
            throw new IllegalStateException("HDF5 " + call + " failed (status " + status + ")");
        }
        return status;
    }

    long file(long id, String call) {
        return keep(id, f -> H5Fclose(f), call);
    }

    long group(long id, String call) {
        return keep(id, g -> H5Gclose(g), call);
    }

    long dataset(long id, String call) {
        return keep(id, d -> H5Dclose(d), call);
    }

    long space(long id, String call) {
        return keep(id, s -> H5Sclose(s), call);
    }

    long type(long id, String call) {
        return keep(id, t -> H5Tclose(t), call);
    }

    long properties(long id, String call) {
        return keep(id, p -> H5Pclose(p), call);
    }

    long attribute(long id, String call) {
        return keep(id, a -> H5Aclose(a), call);
    }

    private long keep(long id, LongToIntFunction closer, String call) {
        if (id < 0) {
            throw new IllegalStateException("HDF5 " + call + " failed (id " + id + ")");
        }
        open.push(new Open(id, closer, call));
        return id;
    }

    /** Closes everything, newest first; the first failure is thrown after all were tried. */
    @Override
    public void close() {
        IllegalStateException failure = null;
        while (!open.isEmpty()) {
            Open o = open.pop();
            int status = o.closer().applyAsInt(o.id());
            if (status < 0 && failure == null) {
                failure = new IllegalStateException("HDF5 close of the id from " + o.call() + " failed (status " + status + ")");
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
