package io.shardflow.console.views;

import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.web.Html;
import io.shardflow.dataset.layout.ShardId;

/** The console's URLs, built in one place from validated names (each part percent-encoded all the same). */
final class Paths {

    private Paths() {
    }

    static String version(VersionKey v) {
        return "/datasets/" + Html.url(v.dataset()) + "/" + Html.url(v.version());
    }

    static String snapshot(VersionKey v, long id) {
        return version(v) + "/snapshots/" + id;
    }

    static String samples(VersionKey v, long id) {
        return snapshot(v, id) + "/samples";
    }

    static String diff(VersionKey v, long a, long b) {
        return version(v) + "/diff?a=" + a + "&b=" + b;
    }

    static String quarantine(VersionKey v) {
        return version(v) + "/quarantine";
    }

    static String shard(VersionKey v, ShardId id) {
        return version(v) + "/shards/" + id.laneAndSequence();
    }

    static String sample(VersionKey v, ShardId id, int row, long snapshot) {
        return shard(v, id) + "/rows/" + row + "?snapshot=" + snapshot;
    }

    static String picture(VersionKey v, ShardId id, int row, String tensor, int size) {
        return shard(v, id) + "/rows/" + row + "/tensors/" + Html.url(tensor) + "/picture?size=" + size;
    }
}
