package io.shardflow.dataset.layout;

import io.shardflow.dataset.spec.Names;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Object keys of a dataset in the bucket. Every key derives from coordinates only (dataset,
 * version, lane, sequence, snapshot id), never from a clock or random id, so writers that replay
 * land on the same keys.
 *
 * <pre>
 * datasets/&lt;d&gt;/&lt;v&gt;/spec.json
 * datasets/&lt;d&gt;/&lt;v&gt;/shards/lane-00003/shard-000000000042.h5
 * datasets/&lt;d&gt;/&lt;v&gt;/shards/lane-00003/shard-000000000042.h5.pages.json   (its page index)
 * datasets/&lt;d&gt;/&lt;v&gt;/log/00000000000000000042.json
 * datasets/&lt;d&gt;/&lt;v&gt;/checkpoints/99999999999999999959-00000000000000000040.json.gz
 * </pre>
 */
public final class DatasetLayout {

    private static final String ROOT = "datasets/";
    private static final Pattern COMMIT_FILE = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern CHECKPOINT_FILE = Pattern.compile("(\\d{20})-(\\d{20})\\.json\\.gz");
    private static final int ID_DIGITS = 20;
    private static final String PAGE_INDEX_SUFFIX = ".pages.json";

    private DatasetLayout() {
    }

    public static String datasetsPrefix() {
        return ROOT;
    }

    /** {@code datasets/<d>/}: the prefix whose sub-prefixes are the versions of {@code dataset}. */
    public static String versionsPrefix(String dataset) {
        return ROOT + Names.requireDatasetName("dataset name", dataset) + "/";
    }

    public static String versionPrefix(String dataset, String version) {
        return versionsPrefix(dataset) + Names.requireDatasetName("dataset version", version) + "/";
    }

    public static String specKey(String dataset, String version) {
        return versionPrefix(dataset, version) + "spec.json";
    }

    public static String shardKey(ShardId id) {
        return versionPrefix(id.dataset(), id.version()) + "shards/" + id.laneAndSequence() + ".h5";
    }

    /**
     * The page index of the shard stored at {@code shardObjectKey} (dataset/FORMAT.md, "Page index"):
     * {@code shards/lane-00003/shard-000000000042.h5.pages.json}.
     */
    public static String pageIndexKey(String shardObjectKey) {
        return shardObjectKey + PAGE_INDEX_SUFFIX;
    }

    /** {@code datasets/<d>/<v>/quarantine/}: one record per shard the sink could not build. */
    public static String quarantinePrefix(String dataset, String version) {
        return versionPrefix(dataset, version) + "quarantine/";
    }

    /** Mirrors {@link #shardKey}: {@code quarantine/lane-NNNNN/shard-NNNNNNNNNNNN.json}. */
    public static String quarantineKey(ShardId id) {
        return quarantinePrefix(id.dataset(), id.version()) + id.laneAndSequence() + ".json";
    }

    /** {@code datasets/<d>/<v>/log/}; commit keys sort lexically in snapshot order thanks to the padding. */
    public static String commitPrefix(String dataset, String version) {
        return versionPrefix(dataset, version) + "log/";
    }

    public static String commitKey(String dataset, String version, long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("commit snapshot ids start at 1, got " + snapshotId);
        }
        return commitPrefix(dataset, version) + String.format("%020d.json", snapshotId);
    }

    /** The snapshot id of a commit key under {@code commitPrefix(d, v)}, or empty if the key is something else. */
    public static OptionalLong snapshotIdOf(String dataset, String version, String key) {
        String prefix = commitPrefix(dataset, version);
        if (key == null || !key.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        Matcher m = COMMIT_FILE.matcher(key.substring(prefix.length()));
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(m.group(1)));
        } catch (NumberFormatException e) {
            return OptionalLong.empty(); // 20 digits can exceed Long.MAX_VALUE: not one of ours
        }
    }

    /**
     * {@code datasets/<d>/<v>/checkpoints/}: a sibling of {@code log/}, so listing the log never
     * walks over checkpoints (and readers that predate checkpoints see nothing new under {@code log/}).
     */
    public static String checkpointPrefix(String dataset, String version) {
        return versionPrefix(dataset, version) + "checkpoints/";
    }

    /**
     * {@code checkpoints/<descending id>-<id>.json.gz}. The descending part is the 20-digit id with
     * every digit {@code d} replaced by {@code 9 - d}, so keys sort newest first and one LIST with
     * {@code max-keys=1} finds the newest checkpoint, however many there are.
     */
    public static String checkpointKey(String dataset, String version, long snapshotId) {
        if (snapshotId < 1) {
            throw new IllegalArgumentException("checkpoint snapshot ids start at 1, got " + snapshotId);
        }
        return checkpointPrefix(dataset, version) + descending(snapshotId) + "-" + padded(snapshotId) + ".json.gz";
    }

    /**
     * The LIST start-after value whose first result is the newest checkpoint with id {@code <= atMost}:
     * the prefix plus the descending form of {@code atMost} (it sorts just before that checkpoint's
     * key and after every newer one).
     */
    public static String checkpointSearchStart(String dataset, String version, long atMost) {
        if (atMost < 0) {
            throw new IllegalArgumentException("snapshot ids are >= 0, got " + atMost);
        }
        return checkpointPrefix(dataset, version) + descending(atMost);
    }

    /** The snapshot id of a checkpoint key, or empty if the key is something else (or its two ids disagree). */
    public static OptionalLong checkpointIdOf(String dataset, String version, String key) {
        String prefix = checkpointPrefix(dataset, version);
        if (key == null || !key.startsWith(prefix)) {
            return OptionalLong.empty();
        }
        Matcher m = CHECKPOINT_FILE.matcher(key.substring(prefix.length()));
        if (!m.matches()) {
            return OptionalLong.empty();
        }
        try {
            long id = Long.parseLong(m.group(2));
            return id >= 1 && m.group(1).equals(descending(id)) ? OptionalLong.of(id) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private static String padded(long id) {
        return String.format("%0" + ID_DIGITS + "d", id);
    }

    /** Nine's complement of the 20-digit form: 99999999999999999999 - id, as 20 digits. */
    private static String descending(long id) {
        char[] digits = padded(id).toCharArray();
        for (int i = 0; i < digits.length; i++) {
            digits[i] = (char) ('9' - (digits[i] - '0'));
        }
        return new String(digits);
    }
}
