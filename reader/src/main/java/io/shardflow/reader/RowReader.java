package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.store.ObjectStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rows of shards for one batch producer: shards downloaded ahead through its own
 * {@link ShardPrefetcher} (on the process's shared {@link ShardCache}), each decoded once and kept
 * while a batch the producer will make next still needs it. Not thread-safe: one per producer.
 */
final class RowReader implements AutoCloseable {

    private final ShardPrefetcher prefetcher;
    private final ShardReader shardReader = new ShardReader();
    /** shardId -> its rows, for the shards the next batches need. */
    private final Map<String, List<SampleRow>> opened = new HashMap<>();

    RowReader(ShardCache cache, ObjectStore store, FetchOptions fetch) {
        this.prefetcher = new ShardPrefetcher(cache, store, fetch);
    }

    /** Starts downloading the shards these entries need that are not open yet, first needed first. */
    void schedule(List<MixedOrder.Entry> upcoming) {
        Map<String, ShardEntry> wanted = new LinkedHashMap<>();
        for (MixedOrder.Entry entry : upcoming) {
            if (!opened.containsKey(entry.shard().shardId())) {
                wanted.putIfAbsent(entry.shard().shardId(), entry.shard());
            }
        }
        prefetcher.schedule(new ArrayList<>(wanted.values()));
    }

    /** The samples of these entries, in their order; then forgets the shards whose ids are not in {@code keep}. */
    List<ReadSample> read(List<MixedOrder.Entry> entries, Set<String> keep) {
        List<ReadSample> out = new ArrayList<>(entries.size());
        for (MixedOrder.Entry entry : entries) {
            List<SampleRow> rows = opened.computeIfAbsent(entry.shard().shardId(), id -> load(entry.shard()));
            out.add(new ReadSample(entry.shard().shardId(), entry.row(), rows.get(entry.row())));
        }
        opened.keySet().retainAll(keep);
        return out;
    }

    @Override
    public void close() {
        opened.clear();
        prefetcher.close();
    }

    private List<SampleRow> load(ShardEntry shard) {
        Path file = prefetcher.get(shard);
        List<SampleRow> rows;
        try {
            rows = shardReader.read(file).rows();
        } finally {
            prefetcher.release(shard);
        }
        if (rows.size() != shard.sampleCount()) {
            throw new IllegalStateException("shard " + shard.shardId() + " holds " + rows.size()
                    + " rows but the commit log says " + shard.sampleCount());
        }
        return rows;
    }
}
