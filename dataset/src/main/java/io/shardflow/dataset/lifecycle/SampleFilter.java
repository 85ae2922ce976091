package io.shardflow.dataset.lifecycle;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.SampleRow;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which samples a delete removes: any of the sample ids, any of the device ids, or a produce-time
 * range {@code [from, to)} in epoch milliseconds. Exactly one kind of criterion per delete, so the
 * log records one clear reason.
 */
public record SampleFilter(Set<String> sampleIds, Set<String> deviceIds, Long producedFrom, Long producedTo) {

    public SampleFilter {
        sampleIds = Set.copyOf(sampleIds);
        deviceIds = Set.copyOf(deviceIds);
        int kinds = (sampleIds.isEmpty() ? 0 : 1) + (deviceIds.isEmpty() ? 0 : 1) + (producedFrom == null ? 0 : 1);
        if (kinds != 1) {
            throw new LifecycleException("give exactly one of --sample-id, --device-id or --produced-between");
        }
        if (producedFrom != null && (producedTo == null || producedTo <= producedFrom)) {
            throw new LifecycleException("--produced-between A B needs A < B (epoch ms or ISO-8601 instants)");
        }
    }

    public static SampleFilter sampleIds(Set<String> ids) {
        return new SampleFilter(ids, Set.of(), null, null);
    }

    public static SampleFilter deviceIds(Set<String> ids) {
        return new SampleFilter(Set.of(), ids, null, null);
    }

    public static SampleFilter producedBetween(long from, long to) {
        return new SampleFilter(Set.of(), Set.of(), from, to);
    }

    public boolean matches(SampleRow row) {
        if (producedFrom != null) {
            return row.producedAtMillis() >= producedFrom && row.producedAtMillis() < producedTo;
        }
        return sampleIds.contains(row.sampleId()) || deviceIds.contains(row.deviceId());
    }

    /** Whether the shard may hold a matching row (the log's produce-time range rules shards out cheaply). */
    public boolean mayMatch(ShardEntry shard) {
        if (producedFrom != null) {
            return shard.lastProducedAt() >= producedFrom && shard.firstProducedAt() < producedTo;
        }
        return true;
    }

    /** The criterion as the delete entry records it. */
    public String describe() {
        if (producedFrom != null) {
            return "producedAt in [" + producedFrom + ", " + producedTo + ")";
        }
        if (!sampleIds.isEmpty()) {
            return "sampleId in " + new TreeSet<>(sampleIds);
        }
        return "deviceId in " + new TreeSet<>(Objects.requireNonNull(deviceIds));
    }
}
