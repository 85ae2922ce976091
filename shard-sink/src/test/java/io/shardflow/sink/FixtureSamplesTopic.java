package io.shardflow.sink;

import io.shardflow.schemas.Sample;
import io.shardflow.sink.source.SampleSource;
import io.shardflow.sink.source.SourcedSample;
import io.shardflow.sink.source.SourceRecordGoneException;
import io.shardflow.sink.source.SourceUnavailableException;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

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
    public void read(int partition, SortedSet<Long> offsets, Consumer<SourcedSample> each) {
        if (down.get()) {
            throw new SourceUnavailableException("broker down (fixture)", null);
        }
        for (long offset : offsets) {
            if (deleted.contains(offset)) {
                // Like the real source: the records before the gone one were already handed on.
                throw new SourceRecordGoneException("records [" + offset + "] of partition " + partition + " are gone (fixture)");
            }
            each.accept(new SourcedSample(offset, replaced.getOrDefault(offset, ShardEvents.sample(Math.toIntExact(offset)))));
        }
    }
}
