package io.shardflow.reader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.internal.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Where a job is in an epoch, whatever its ranks and workers (docs/READING-RULES.md, section 3):
 * one count of consumed positions, plus what pins the order. Every rank of a job in lockstep has
 * the same state, so any rank's state resumes the whole job on any number of ranks, workers and
 * batch size: the remainder {@code [consumed, samples)} is split afresh.
 *
 * <p>{@link #toJson()} writes the format the Python reader writes ({@code shardflow.read-state/2},
 * same keys in the same order, compact), so a state saved by a Python trainer resumes a Java reader
 * and the other way round. A few hundred bytes per source.
 *
 * @param samples  the epoch's length S (for a mix, T: the sum of the counts)
 * @param consumed C: positions {@code [0, C)} of the epoch order have been delivered, all ranks together
 */
public record ReadState(long seed, long epoch, boolean dropLast, long samples, long consumed, List<SourcePin> sources) {

    public static final String FORMAT = "shardflow.read-state/2";
    private static final String WHAT = "resume state";

    public ReadState {
        sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
        if (seed < 0 || epoch < 0) {
            throw new IllegalArgumentException("a damaged resume state: seed " + seed + " and epoch " + epoch + " must be >= 0");
        }
        if (consumed < 0 || consumed > samples || sources.isEmpty()) {
            throw new IllegalArgumentException("a damaged resume state: " + consumed + " consumed of " + samples + " over "
                    + sources.size() + " sources");
        }
    }

    /** The whole epoch was delivered: resuming reads nothing more of it. */
    public boolean done() {
        return consumed >= samples;
    }

    ReadState withConsumed(long count) {
        return new ReadState(seed, epoch, dropLast, samples, count, sources);
    }

    /** One line of JSON, byte for byte what Python's {@code json.dumps(state, separators=(",", ":"))} writes. */
    public String toJson() {
        ObjectNode node = Json.object();
        node.put("format", FORMAT);
        node.put("seed", seed);
        node.put("epoch", epoch);
        node.put("drop_last", dropLast);
        node.put("samples", samples);
        node.put("consumed", consumed);
        ArrayNode list = node.putArray("sources");
        for (SourcePin pin : sources) {
            ObjectNode s = list.addObject();
            s.put("dataset", pin.dataset());
            s.put("version", pin.version());
            s.put("snapshot_id", pin.snapshotId());
            if (pin.sinceSnapshot() == null) {
                s.putNull("since_snapshot");
            } else {
                s.put("since_snapshot", pin.sinceSnapshot());
            }
            s.put("shuffle_shards", pin.shuffleShards());
            s.put("shuffle_block", pin.shuffleBlock());
            s.put("count", pin.count());
        }
        return Json.compact(node);
    }

    /** Parses a state written by either reader; a clear error for anything else. */
    public static ReadState fromJson(String json) {
        JsonNode node = Json.parseObject(json.getBytes(StandardCharsets.UTF_8), WHAT);
        JsonNode format = node.get("format");
        if (format == null || !FORMAT.equals(format.asText())) {
            throw new IllegalArgumentException("not a shardflow resume state (format " + (format == null ? "missing" : format)
                    + ", expected " + FORMAT + "); states of reading rules version 1 (Java {epoch, seed, snapshotId,"
                    + " samplesYielded}, Python shardflow.sample-stream/1) cannot be resumed exactly");
        }
        List<SourcePin> sources = new ArrayList<>();
        for (JsonNode s : Json.array(node, "sources", WHAT)) {
            String what = "resume state source";
            JsonNode since = s.get("since_snapshot");
            if (since == null) {
                throw new IllegalArgumentException(what + " has no field 'since_snapshot'");
            }
            sources.add(new SourcePin(Json.text(s, "dataset", what), Json.text(s, "version", what),
                    Json.longValue(s, "snapshot_id", what), since.isNull() ? null : Json.longValue(s, "since_snapshot", what),
                    Json.booleanValue(s, "shuffle_shards", what), Json.intValue(s, "shuffle_block", what),
                    Json.longValue(s, "count", what)));
        }
        return new ReadState(Json.longValue(node, "seed", WHAT), Json.longValue(node, "epoch", WHAT),
                Json.booleanValue(node, "drop_last", WHAT), Json.longValue(node, "samples", WHAT),
                Json.longValue(node, "consumed", WHAT), sources);
    }

    /** Refuses a state made for other data or settings: the order would differ. */
    void checkSettings(long readerSeed, List<ReadSource> readerSources, boolean shuffleShards, int shuffleBlock) {
        List<String> mine = sources.stream().map(SourcePin::name).toList();
        List<String> theirs = readerSources.stream().map(s -> s.dataset() + "/" + s.version()).toList();
        if (!mine.equals(theirs)) {
            throw new IllegalArgumentException("the resume state is for " + mine + ", not " + theirs);
        }
        if (seed != readerSeed) {
            throw new IllegalArgumentException("the resume state was saved with seed=" + seed + " but this reader has seed="
                    + readerSeed + "; the order would differ");
        }
        for (SourcePin pin : sources) {
            if (pin.shuffleShards() != shuffleShards || pin.shuffleBlock() != shuffleBlock) {
                throw new IllegalArgumentException("the resume state was saved with shuffle_shards=" + pin.shuffleShards()
                        + ", shuffle_block=" + pin.shuffleBlock() + " for " + pin.name() + " but this reader has shuffle_shards="
                        + shuffleShards + ", shuffle_block=" + shuffleBlock);
            }
        }
    }

    /**
     * One state from the states of the ranks of one job. Ranks in lockstep have the same state, and
     * that is the result. Ranks that delivered different numbers of batches: refused unless
     * {@code repeatUneven}, which keeps the smallest consumed count, so the samples the faster ranks
     * delivered beyond it are read again after the resume (none is lost).
     */
    public static ReadState merge(List<ReadState> states, boolean repeatUneven) {
        if (states.isEmpty()) {
            throw new IllegalArgumentException("no states to merge");
        }
        ReadState first = states.get(0);
        TreeSet<Long> consumed = new TreeSet<>();
        for (ReadState other : states) {
            if (!other.withConsumed(first.consumed).equals(first)) {
                throw new IllegalArgumentException("cannot merge resume states of different reads: " + first.toJson() + " and "
                        + other.toJson());
            }
            consumed.add(other.consumed);
        }
        if (consumed.size() > 1 && !repeatUneven) {
            throw new IllegalArgumentException("the ranks were not in lockstep: their states consumed " + consumed
                    + " samples of epoch " + first.epoch + ". ReadState.merge(states, true) resumes from the smallest ("
                    + consumed.first() + "): the samples the others delivered beyond it come again");
        }
        return first.withConsumed(consumed.first());
    }
}
