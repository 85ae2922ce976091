package io.shardflow.dataset.shard;

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

    /**
     * Keeps an id a call returned, to be closed by {@code closer} (such as {@code hdf5::H5Dclose});
     * a negative id means the call failed and becomes an exception naming it.
     */
    long keep(long id, LongToIntFunction closer, String call) {
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
