package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * Reads durable entries in seq order for the sender, one open segment at a time. An entry that does
 * not read back in a synced segment costs the rest of that segment, counted as corrupt, so a bad
 * spot never stalls the queue; a segment dropped under it just moves it on.
 */
public final class QueueReader implements AutoCloseable {

    private final DurableQueue queue;
    private long seq;
    private FileChannel channel;
    private Segment segment;
    private long offset;

    public QueueReader(DurableQueue queue, long startSeq) {
        this.queue = queue;
        this.seq = startSeq;
    }

    /** The next entry once durable, or empty after {@code timeoutMs} without one. */
    public Optional<SegmentFormat.Frame> next(long timeoutMs) throws IOException, InterruptedException {
        seq = Math.max(seq, queue.doneSeq() + 1);
        if (queue.durableSeq() < seq && queue.awaitDurableAfter(seq - 1, timeoutMs) < seq) {
            return Optional.empty();
        }
        while (queue.durableSeq() >= seq) {
            if (segment == null || seq < segment.firstSeq || seq >= segmentEnd()) {
                if (!openSegmentOf(seq)) {
                    return Optional.empty();
                }
                continue;
            }
            Optional<SegmentFormat.Frame> frame = SegmentFormat.readFrame(channel, offset, seq);
            if (frame.isPresent()) {
                offset += frame.get().size();
                seq++;
                return frame;
            }
            loseRestOfSegment();
        }
        return Optional.empty();
    }

    private void loseRestOfSegment() throws IOException, InterruptedException {
        if (queue.segments().stream().allMatch(s -> s.firstSeq <= segment.firstSeq)) {
            queue.sealActive(segment.firstSeq);
        }
        long end = segmentEnd();
        queue.skipCorrupt(seq, end);
        seq = end;
        closeSegment();
    }

    private long segmentEnd() {
        return queue.segments().stream().mapToLong(s -> s.firstSeq).filter(f -> f > segment.firstSeq).min()
                .orElse(queue.durableSeq() + 1);
    }

    private boolean openSegmentOf(long target) throws IOException, InterruptedException {
        closeSegment();
        List<Segment> candidates = queue.segments().stream().filter(s -> s.firstSeq <= target).toList();
        if (candidates.isEmpty()) {
            return false;
        }
        Segment info = candidates.get(candidates.size() - 1);
        try {
            channel = FileChannel.open(info.path, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return false;
        }
        segment = info;
        offset = SegmentFormat.HEADER_BYTES;
        long at = info.firstSeq;
        while (at < target) {
            Optional<SegmentFormat.Frame> frame = SegmentFormat.readFrame(channel, offset, at);
            if (frame.isEmpty()) {
                loseRestOfSegment();
                return true;
            }
            offset += frame.get().size();
            at++;
        }
        return true;
    }

    private void closeSegment() throws IOException {
        if (channel != null) {
            channel.close();
        }
        channel = null;
        segment = null;
    }

    @Override
    public void close() throws IOException {
        closeSegment();
    }
}
