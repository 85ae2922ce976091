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
 * datasets/&lt;d&gt;/&lt;v&gt;/log/00000000000000000042.json
 * </pre>
 */
public final class DatasetLayout {

    private static final String ROOT = "datasets/";
    private static final Pattern COMMIT_FILE = Pattern.compile("(\\d{20})\\.json");

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
}
