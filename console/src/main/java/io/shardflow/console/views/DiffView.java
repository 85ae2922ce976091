package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.data.Timeline;
import io.shardflow.console.web.Etags;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What changed between snapshot A and snapshot B of a version: shards and samples added and removed,
 * and the entries in between that explain it, compactions (replace) and deletions with their reasons.
 * Both snapshots are immutable, so the page carries an ETag.
 */
public final class DiffView {

    private final DatasetAccess access;
    private final SnapshotViews snapshots;
    private final Timeline timeline = new Timeline();

    public DiffView(DatasetAccess access, SnapshotViews snapshots) {
        this.access = access;
        this.snapshots = snapshots;
    }

    public void diff(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetViews.requireSpec(access, key);
        long a = Params.number(ctx.queryParam("a"), "a", 0);
        long b = Params.number(ctx.queryParam("b"), "b", 0);
        if (a > b) {
            long t = a;
            a = b;
            b = t;
        }
        Snapshot to = snapshots.snapshot(key, b);
        Snapshot from = snapshots.snapshot(key, a);
        if (Etags.notModified(ctx, "diff " + key + " " + a + " " + b, false)) {
            return;
        }
        Set<String> inA = from.shards().stream().map(ShardEntry::shardId).collect(Collectors.toSet());
        Set<String> inB = to.shards().stream().map(ShardEntry::shardId).collect(Collectors.toSet());
        List<ShardEntry> added = to.shards().stream().filter(s -> !inA.contains(s.shardId())).toList();
        List<ShardEntry> removed = from.shards().stream().filter(s -> !inB.contains(s.shardId())).toList();
        long samplesAdded = added.stream().mapToLong(ShardEntry::sampleCount).sum();
        long samplesRemoved = removed.stream().mapToLong(ShardEntry::sampleCount).sum();
        final long lo = a;
        final long hi = b;
        List<Timeline.Point> between = timeline.of(key, access.log(key)).stream()
                .filter(p -> p.snapshotId() > lo && p.snapshotId() <= hi).toList();

        StringBuilder body = new StringBuilder("<div class=\"cards\" id=\"diff-summary\">");
        card(body, "shards added", "+" + added.size());
        card(body, "shards removed", "-" + removed.size());
        card(body, "samples added", "+" + samplesAdded);
        card(body, "samples removed", "-" + samplesRemoved);
        card(body, "net samples", String.format("%+d", to.sampleCount() - from.sampleCount()));
        card(body, "size", Layout.bytes(from.bytes()) + " \u2192 " + Layout.bytes(to.bytes()));
        body.append("</div>");
        List<Timeline.Point> compactions = between.stream().filter(p -> p.kind() == EntryKind.REPLACE).toList();
        List<Timeline.Point> deletions = between.stream().filter(p -> p.kind() == EntryKind.DELETE).toList();
        body.append("<h2>Deletions</h2>");
        if (deletions.isEmpty()) {
            body.append("<p class=\"muted\">No sample was deleted between these snapshots.</p>");
        } else {
            body.append("<table id=\"deletions\"><tr><th>snapshot</th><th>by</th><th>reason</th><th>criteria</th><th class=\"num\">samples deleted</th></tr>");
            for (Timeline.Point p : deletions) {
                body.append("<tr><td>").append(Layout.link(Paths.snapshot(key, p.snapshotId()), Long.toString(p.snapshotId())))
                        .append("</td><td>").append(Html.text(p.committer())).append("</td><td class=\"reason\">")
                        .append(Html.text(p.details().getOrDefault("reason", ""))).append("</td><td class=\"mono\">")
                        .append(Html.text(p.details().getOrDefault("criteria", ""))).append("</td><td class=\"num\">")
                        .append(Html.text(p.details().getOrDefault("deletedSamples", ""))).append("</td></tr>");
            }
            body.append("</table>");
        }
        body.append("<h2>Compactions</h2>");
        if (compactions.isEmpty()) {
            body.append("<p class=\"muted\">No compaction between these snapshots.</p>");
        } else {
            body.append("<table id=\"compactions\"><tr><th>snapshot</th><th>by</th><th class=\"num\">shards merged</th><th class=\"num\">into</th><th>details</th></tr>");
            for (Timeline.Point p : compactions) {
                body.append("<tr><td>").append(Layout.link(Paths.snapshot(key, p.snapshotId()), Long.toString(p.snapshotId())))
                        .append("</td><td>").append(Html.text(p.committer())).append("</td><td class=\"num\">").append(p.shardsRemoved())
                        .append("</td><td class=\"num\">").append(p.shardsAdded()).append("</td><td>").append(DatasetViews.details(p.details()))
                        .append("</td></tr>");
            }
            body.append("</table>");
        }
        body.append("<h2>Commits between</h2><table id=\"commits-between\"><tr><th>snapshot</th><th>kind</th><th>at</th><th>by</th>")
                .append("<th class=\"num\">samples +/-</th></tr>");
        for (Timeline.Point p : between) {
            body.append("<tr><td>").append(Layout.link(Paths.snapshot(key, p.snapshotId()), Long.toString(p.snapshotId())))
                    .append("</td><td>").append(Html.text(p.kind().wireName())).append("</td><td>").append(Html.text(p.committedAt()))
                    .append("</td><td>").append(Html.text(p.committer())).append("</td><td class=\"num\">+").append(p.samplesAdded())
                    .append(" / -").append(p.samplesRemoved()).append("</td></tr>");
        }
        body.append("</table><h2>Shards added</h2>").append(SnapshotViews.shardTable(key, added, 0, Paths.diff(key, a, b)));
        body.append("<h2>Shards removed</h2>").append(removed.isEmpty() ? "<p class=\"muted\">none</p>"
                : SnapshotViews.shardTable(key, removed, 0, Paths.diff(key, a, b)));
        ctx.html(Layout.page("Snapshot " + a + " \u2192 " + b + " of " + key.dataset() + "/" + key.version(),
                List.of(crumb("datasets", "/"), crumb(key.dataset() + "/" + key.version(), Paths.version(key)), crumb("diff", null)),
                body.toString()));
    }

    private static void card(StringBuilder body, String label, String value) {
        body.append("<div class=\"card\"><div class=\"muted\">").append(Html.text(label)).append("</div><div class=\"big-number\">")
                .append(Html.text(value)).append("</div></div>");
    }
}
