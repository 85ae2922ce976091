package io.shardflow.edge.queue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening a queue directory: lists the segments, reads only the newest through (a torn tail can only
 * be there: a segment is synced before the next is created) and cuts it after its last whole entry,
 * drops segments wholly done, and makes sure there is a segment to append to whose first seq has
 * never been used. The same steps as the Python SDK's recovery (docs/EDGE-QUEUE.md).
 */
final class SegmentRecovery {

    private static final Logger LOG = LoggerFactory.getLogger(SegmentRecovery.class);

    record Recovered(List<Segment> segments, long nextSeq, long cutBytes) {
    }

    private SegmentRecovery() {
    }

    static Recovered recover(Path directory, long done) throws IOException {
        List<Segment> segments = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            files.filter(p -> SegmentFormat.parseSegmentName(p.getFileName().toString()) >= 0).sorted().forEach(p -> {
                long first = SegmentFormat.parseSegmentName(p.getFileName().toString());
                segments.add(new Segment(first, p, 0, 0));
            });
        }
        for (int i = 0; i < segments.size(); i++) {
            segments.get(i).size = Files.size(segments.get(i).path);
            if (i + 1 < segments.size()) {
                segments.get(i).endSeq = segments.get(i + 1).firstSeq;
            }
        }
        long cut = 0;
        while (!segments.isEmpty()) {
            Segment newest = segments.get(segments.size() - 1);
            try (FileChannel channel = FileChannel.open(newest.path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                Optional<Long> first = SegmentFormat.readHeader(channel, newest.path.toString());
                if (first.isEmpty() || first.get() != newest.firstSeq) {
                    LOG.warn("edge queue: removing segment {} with a torn header", newest.path);
                    cut += newest.size;
                    channel.close();
                    Files.delete(newest.path);
                    segments.remove(segments.size() - 1);
                    continue;
                }
                long offset = SegmentFormat.HEADER_BYTES;
                long seq = newest.firstSeq;
                for (Optional<SegmentFormat.Frame> frame = SegmentFormat.readFrame(channel, offset, seq); frame.isPresent();
                     frame = SegmentFormat.readFrame(channel, offset, seq)) {
                    offset += frame.get().size();
                    seq++;
                }
                if (offset < newest.size) {
                    LOG.info("edge queue: cutting {} bytes after seq {} from {}", newest.size - offset, seq - 1, newest.path);
                    cut += newest.size - offset;
                    channel.truncate(offset);
                    channel.force(true);
                }
                newest.size = offset;
                newest.endSeq = seq;
            }
            break;
        }
        long nextSeq = Math.max(segments.isEmpty() ? 1 : segments.get(segments.size() - 1).endSeq, done + 1);
        Segment newest = segments.isEmpty() ? null : segments.get(segments.size() - 1);
        boolean fullyDone = newest != null && newest.firstSeq < newest.endSeq && newest.endSeq <= done + 1;
        if (newest == null || newest.endSeq != nextSeq || fullyDone) {
            if (newest != null && newest.endSeq == newest.firstSeq) {
                Files.delete(newest.path);
                segments.remove(segments.size() - 1);
            }
            segments.add(create(directory, nextSeq, null));
        }
        while (segments.size() > 1 && segments.get(0).endSeq - 1 <= done) {
            Files.delete(segments.remove(0).path);
        }
        return new Recovered(segments, nextSeq, cut);
    }

    /** A new segment, in {@code reuse} (a done segment file, renamed) when given. */
    static Segment create(Path directory, long firstSeq, Path reuse) throws IOException {
        Path path = directory.resolve(SegmentFormat.segmentName(firstSeq));
        if (reuse != null) {
            Files.move(reuse, path);
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            if (reuse == null) {
                channel.truncate(0);
            }
            channel.write(SegmentFormat.header(firstSeq), 0);
            channel.force(true);
            QueueCursor.syncDirectory(directory);
        } catch (IOException e) {
            Files.deleteIfExists(path);
            throw e;
        }
        return new Segment(firstSeq, path, SegmentFormat.HEADER_BYTES, firstSeq);
    }
}
