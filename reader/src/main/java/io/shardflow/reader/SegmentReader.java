package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * The samples of one {@link Segment} for one worker: its shards' rows in order through a seeded
 * shuffle buffer, drained at the end. Not thread-safe.
 */
final class SegmentReader {

    private final Segment segment;
    private final Function<ShardEntry, List<SampleRow>> rowsOf;
    private final ShuffleBuffer<ReadSample> buffer;
    /** Next input: row {@code row} of shard {@code shard} (an index into {@code segment.mine()}). */
    private int shard;
    private int row;
    private List<SampleRow> rows;

    private SegmentReader(Segment segment, Function<ShardEntry, List<SampleRow>> rowsOf, ShuffleBuffer<ReadSample> buffer,
                          int shard, int row, List<SampleRow> rows) {
        this.segment = segment;
        this.rowsOf = rowsOf;
        this.buffer = buffer;
        this.shard = shard;
        this.row = row;
        this.rows = rows;
    }

    /**
     * A reader of {@code segment} that has already yielded {@code skip} samples. The buffer's choices
     * are replayed on positions alone (shard, row), which needs only the sample counts in the log;
     * then the shards still present in the buffer, and the one partly read, are read for real.
     */
    static SegmentReader startingAfter(Segment segment, long skip, ReaderOptions options,
                                       Function<ShardEntry, List<SampleRow>> rowsOf) {
        SplittableRandom random = new SplittableRandom(ShardOrder.seedOf("buffer:" + options.seed() + ":" + options.epoch()
                + ":" + options.globalWorker() + ":" + segment.snapshotId()));
        ShuffleBuffer<Long> positions = new ShuffleBuffer<>(options.shuffleBuffer(), random);
        List<ShardEntry> mine = segment.mine();
        int shard = 0;
        int row = 0;
        long yielded = 0;
        while (yielded < skip) {
            Long out;
            if (shard < mine.size()) {
                out = positions.offer(((long) shard << 32) | row);
                if (++row == mine.get(shard).sampleCount()) {
                    shard++;
                    row = 0;
                }
            } else {
                out = positions.drain();
                if (out == null) {
                    throw new IllegalStateException("cannot skip " + skip + " samples of a segment of " + yielded);
                }
            }
            if (out != null) {
                yielded++;
            }
        }
        Map<Integer, List<SampleRow>> loaded = new HashMap<>();
        Function<Integer, List<SampleRow>> load = i -> loaded.computeIfAbsent(i, k -> checkedRows(mine.get(k), rowsOf));
        ShuffleBuffer<ReadSample> buffer = positions.map(position -> {
            int s = (int) (position >>> 32);
            int r = (int) (long) position;
            return new ReadSample(mine.get(s).shardId(), r, load.apply(s).get(r));
        });
        List<SampleRow> rows = row > 0 ? load.apply(shard) : null;
        return new SegmentReader(segment, rowsOf, buffer, shard, row, rows);
    }

    /** The next sample, or null when the segment is done. */
    ReadSample next() {
        List<ShardEntry> mine = segment.mine();
        while (shard < mine.size()) {
            if (rows == null) {
                rows = checkedRows(mine.get(shard), rowsOf);
            }
            ReadSample input = new ReadSample(mine.get(shard).shardId(), row, rows.get(row));
            if (++row == rows.size()) {
                shard++;
                row = 0;
                rows = null;
            }
            ReadSample out = buffer.offer(input);
            if (out != null) {
                return out;
            }
        }
        return buffer.drain();
    }

    private static List<SampleRow> checkedRows(ShardEntry shard, Function<ShardEntry, List<SampleRow>> rowsOf) {
        List<SampleRow> rows = rowsOf.apply(shard);
        if (rows.size() != shard.sampleCount()) {
            throw new IllegalStateException("shard " + shard.shardId() + " holds " + rows.size()
                    + " rows but the commit log says " + shard.sampleCount());
        }
        return rows;
    }
}
