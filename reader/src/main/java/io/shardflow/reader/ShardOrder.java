package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;

/**
 * The shard order of an epoch (docs/READING-RULES.md, section 1, step 1): Java and Python readers
 * given the same seed, epoch and shard list put the shards in the same order. Ascending lowercase
 * hex {@code sha256(seed + ":" + epoch + ":" + shardId)} (UTF-8, seed and epoch in decimal); ties
 * (only equal ids) by shard id. {@link EpochOrder} then concatenates their rows and permutes them
 * within blocks.
 */
public final class ShardOrder {

    private ShardOrder() {
    }

    /** The sort key of one shard in one epoch. */
    public static String key(long seed, long epoch, String shardId) {
        return sha256Hex(seed + ":" + epoch + ":" + shardId);
    }

    /** The shards in this epoch's order (a new list). */
    public static List<ShardEntry> shuffle(List<ShardEntry> shards, long seed, long epoch) {
        record Keyed(String key, ShardEntry shard) {
        }
        List<Keyed> keyed = new ArrayList<>(shards.size());
        for (ShardEntry shard : shards) {
            keyed.add(new Keyed(key(seed, epoch, shard.shardId()), shard));
        }
        keyed.sort(Comparator.comparing(Keyed::key).thenComparing(k -> k.shard().shardId()));
        List<ShardEntry> ordered = new ArrayList<>(keyed.size());
        for (Keyed k : keyed) {
            ordered.add(k.shard());
        }
        return ordered;
    }

    static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
