package io.shardflow.dataset.layout;

import io.shardflow.dataset.spec.Names;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Identity of one shard, derived only from stream coordinates (docs/ARCHITECTURE.md, invariant 2): the same lane and
 * sequence always name the same shard, so a replay after a crash rewrites the same object key.
 *
 * <p>Text form: {@code dataset/version/lane-00003/shard-000000000042}.
 */
public record ShardId(String dataset, String version, int lane, long sequence) {

    public static final int MAX_LANE = 99_999;
    public static final long MAX_SEQUENCE = 999_999_999_999L;

    private static final Pattern TEXT = Pattern.compile("([^/]+)/([^/]+)/lane-(\\d{5})/shard-(\\d{12})");

    public ShardId {
        Names.requireDatasetName("dataset name", dataset);
        Names.requireDatasetName("dataset version", version);
        // The padding widths are part of the key format: a wider number would break the lexical
        // order that listing and humans rely on.
        if (lane < 0 || lane > MAX_LANE) {
            throw new IllegalArgumentException("shard lane " + lane + " is out of range 0.." + MAX_LANE);
        }
        if (sequence < 0 || sequence > MAX_SEQUENCE) {
            throw new IllegalArgumentException("shard sequence " + sequence + " is out of range 0.." + MAX_SEQUENCE);
        }
    }

    /** Lane and sequence part, e.g. {@code lane-00003/shard-000000000042}; used in object keys. */
    public String laneAndSequence() {
        return String.format("lane-%05d/shard-%012d", lane, sequence);
    }

    @Override
    public String toString() {
        return dataset + "/" + version + "/" + laneAndSequence();
    }

    /** Parses exactly the form {@link #toString()} produces. */
    public static ShardId parse(String text) {
        Matcher m = text == null ? null : TEXT.matcher(text);
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException("shard id '" + text
                    + "' must look like dataset/version/lane-00003/shard-000000000042");
        }
        return new ShardId(m.group(1), m.group(2), Integer.parseInt(m.group(3)), Long.parseLong(m.group(4)));
    }
}
