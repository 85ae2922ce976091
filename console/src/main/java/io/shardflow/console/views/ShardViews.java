package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.data.ShardStats;
import io.shardflow.console.data.SnapshotStatistics;
import io.shardflow.console.ops.SealReasons;
import io.shardflow.console.web.Etags;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.quarantine.QuarantineLog;
import io.shardflow.dataset.quarantine.QuarantinedShard;
import io.shardflow.dataset.spec.DatasetSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** One shard (its log entry, seal reason, verification and statistics) and the version's quarantined shards. */
public final class ShardViews {

    private final DatasetAccess access;
    private final SnapshotStatistics statistics;
    private final Optional<SealReasons> sealReasons;

    public ShardViews(DatasetAccess access, SnapshotStatistics statistics, Optional<SealReasons> sealReasons) {
        this.access = access;
        this.statistics = statistics;
        this.sealReasons = sealReasons;
    }

    public void shard(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = DatasetViews.requireSpec(access, key);
        ShardId id = Params.shard(ctx, key);
        DatasetAccess.LocatedShard located = access.shard(key, id)
                .orElseThrow(() -> new NotFoundResponse("shard " + id + " is not in the commit log of " + key.dataset() + "/" + key.version()));
        ShardEntry s = located.entry();
        String verification;
        boolean verified;
        ShardStats stats = null;
        try {
            access.file(s);
            stats = statistics.of(spec, s);
            verification = "sha256 and size match the commit log (checked when the console downloaded it)";
            verified = true;
        } catch (RuntimeException e) {
            verification = "FAILED: " + e.getMessage();
            verified = false;
        }
        if (verified && Etags.notModified(ctx, "shard " + s.sha256() + " " + id, false)) {
            return;
        }
        String seal = sealReasons.map(r -> r.reasonOf(key, located)).orElse("unknown (Kafka is not configured)");
        StringBuilder body = new StringBuilder();
        body.append(Layout.facts("shard id", s.shardId(), "object key", s.objectKey(), "lane", Integer.toString(s.lane()),
                "sequence", Long.toString(s.sequence()), "samples", Integer.toString(s.sampleCount()), "size", Layout.bytes(s.bytes())
                        + " (" + s.bytes() + " bytes)", "sha256", s.sha256(), "spec fingerprint", s.specFingerprint()
                        + (s.specFingerprint().equals(spec.fingerprint()) ? " (the version's)" : " (NOT the version's spec)"),
                "produced", Instant.ofEpochMilli(s.firstProducedAt()) + " \u2013 " + Instant.ofEpochMilli(s.lastProducedAt()),
                "added in snapshot", Long.toString(located.addedIn()), "seal reason", seal));
        body.append("<p>verification: <span id=\"verification\" class=\"badge ").append(verified ? "ok" : "bad").append("\">")
                .append(Html.text(verification)).append("</span></p>");
        if (stats != null) {
            body.append("<h2>Devices</h2><table id=\"shard-devices\"><tr><th>device</th><th class=\"num\">samples</th></tr>");
            SnapshotViews.sorted(stats.devices()).forEach((device, n) -> body.append("<tr><td>").append(Html.text(device))
                    .append("</td><td class=\"num\">").append(n).append("</td></tr>"));
            body.append("</table>").append(SnapshotViews.statistics(spec, new SnapshotStatistics.Progress(stats, 1, 1, Optional.empty())));
            body.append("<h2>Rows</h2><p>");
            int shown = Math.min(s.sampleCount(), 50);
            for (int row = 0; row < shown; row++) {
                body.append(Layout.link(Paths.sample(key, id, row, located.addedIn()), Integer.toString(row))).append(' ');
            }
            body.append(shown < s.sampleCount() ? "\u2026 (browse the snapshot's samples for the rest)" : "").append("</p>");
        }
        ctx.html(Layout.page("Shard " + id.laneAndSequence(), List.of(crumb("datasets", "/"),
                crumb(key.dataset() + "/" + key.version(), Paths.version(key)),
                crumb("snapshot " + located.addedIn(), Paths.snapshot(key, located.addedIn())), crumb(id.laneAndSequence(), null)),
                body.toString()));
    }

    public void quarantine(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetViews.requireSpec(access, key);
        List<QuarantinedShard> shards = new QuarantineLog(access.store()).list(key.dataset(), key.version());
        StringBuilder body = new StringBuilder();
        if (shards.isEmpty()) {
            body.append("<p id=\"no-quarantine\" class=\"muted\">No quarantined shards: shard-sink built every sealed shard.</p>");
        } else {
            body.append("<table id=\"quarantine\"><tr><th>shard</th><th>reason</th><th class=\"num\">samples</th><th>by</th><th>at</th><th>why</th></tr>");
            for (QuarantinedShard q : shards) {
                body.append("<tr><td class=\"mono\">").append(Html.text(q.shardId())).append("</td><td>").append(Html.text(q.reason()))
                        .append("</td><td class=\"num\">").append(q.sampleCount()).append("</td><td>").append(Html.text(q.quarantinedBy()))
                        .append("</td><td>").append(Html.text(q.quarantinedAt())).append("</td><td><pre>").append(Html.text(q.detail()))
                        .append("</pre></td></tr>");
            }
            body.append("</table>");
        }
        ctx.html(Layout.page("Quarantined shards of " + key.dataset() + "/" + key.version(), List.of(crumb("datasets", "/"),
                crumb(key.dataset() + "/" + key.version(), Paths.version(key)), crumb("quarantine", null)), body.toString()));
    }
}
