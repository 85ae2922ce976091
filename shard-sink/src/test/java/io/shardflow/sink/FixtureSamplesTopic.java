package io.shardflow.sink;

import io.shardflow.schemas.Sample;
import io.shardflow.sink.source.SampleSource;
import io.shardflow.sink.source.SourceRecordGoneException;
import io.shardflow.sink.source.SourceUnavailableException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The samples topic as the sink's poll-loop tests see it: the record at offset {@code n} of any
 * partition is {@link ShardEvents#sample(int) sample(n)}, unless a test replaced it, deleted it (as
 * retention would) or made the whole topic unreachable.
 */
final class FixtureSamplesTopic implements SampleSource {

    private final Map<Long, Sample> replaced = new ConcurrentHashMap<>();
    private final Set<Long> deleted = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean down = new AtomicBoolean();

    FixtureSamplesTopic put(long offset, Sample sample) {
        replaced.put(offset, sample);
        return this;
    }

    FixtureSamplesTopic delete(long offset) {
        deleted.add(offset);
        return this;
    }

    void down(boolean unreachable) {
        down.set(unreachable);
    }

    @Override
    public Map<Long, Sample> read(int partition, SortedSet<Long> offsets) {
        if (down.get()) {
            throw new SourceUnavailableException("broker down (fixture)", null);
        }
        Set<Long> gone = new HashSet<>(offsets);
        gone.retainAll(deleted);
        if (!gone.isEmpty()) {
            throw new SourceRecordGoneException("records " + gone + " of partition " + partition + " are gone (fixture)");
        }
        Map<Long, Sample> read = new HashMap<>();
        offsets.forEach(offset -> read.put(offset, replaced.getOrDefault(offset, ShardEvents.sample(Math.toIntExact(offset)))));
        return read;
    }
}
