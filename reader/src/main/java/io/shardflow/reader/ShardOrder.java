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
 * The language-neutral shard shuffle and split (dataset/FORMAT.md, "Reading"): Java and Python
 * readers given the same seed, epoch and shard list put the shards in the same order and give each
 * worker the same ones.
 *
 * <ul>
 *   <li>order: ascending lowercase hex {@code sha256(seed + ":" + epoch + ":" + shardId)} (UTF-8,
 *       seed and epoch in decimal), ties (only equal ids) by shard id;</li>
 *   <li>split: global worker {@code g = rank * workersPerRank + worker} of {@code total = worldSize *
 *       workersPerRank} gets the shard at position {@code i} iff {@code i % total == g}.</li>
 * </ul>
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

    /** Whether position {@code index} of the global order belongs to global worker {@code globalWorker} of {@code totalWorkers}. */
    public static boolean belongsTo(long index, int globalWorker, int totalWorkers) {
        return index % totalWorkers == globalWorker;
    }

    static String sha256Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    /** A 64-bit seed from text: the first 8 bytes of its SHA-256, big-endian. */
    static long seedOf(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            long seed = 0;
            for (int i = 0; i < 8; i++) {
                seed = (seed << 8) | (digest[i] & 0xff);
            }
            return seed;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
