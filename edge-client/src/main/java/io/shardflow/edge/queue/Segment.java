package io.shardflow.edge.queue;

import java.nio.file.Path;

/** One segment file: its first seq, one past its last ({@code endSeq}) and its size in bytes. */
final class Segment {
    final long firstSeq;
    final Path path;
    long size;
    long endSeq;

    Segment(long firstSeq, Path path, long size, long endSeq) {
        this.firstSeq = firstSeq;
        this.path = path;
        this.size = size;
        this.endSeq = endSeq;
    }

    Segment copy() {
        return new Segment(firstSeq, path, size, endSeq);
    }
}
