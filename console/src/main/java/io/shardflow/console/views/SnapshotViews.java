package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.data.ShardStats;
import io.shardflow.console.data.SnapshotStatistics;
import io.shardflow.console.data.TensorStats;
import io.shardflow.console.web.Etags;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.console.web.SvgCharts;
import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.log.SnapshotExpiredException;
import io.shardflow.dataset.spec.DatasetSpec;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One snapshot: its totals, its full statistics (merged from per-shard statistics, computed in the
 * background the first time and shown with progress until complete) and its shards, a page of them at
 * a time. Snapshots never change, so a complete page carries an ETag.
 */
public final class SnapshotViews {

    private static final int SHARDS_PER_PAGE = 100;

    private final DatasetAccess access;
    private final SnapshotStatistics statistics;

    public SnapshotViews(DatasetAccess access, SnapshotStatistics statistics) {
        this.access = access;
        this.statistics = statistics;
    }

    public void snapshot(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = DatasetViews.requireSpec(access, key);
        Snapshot snapshot = snapshot(key, Params.number(ctx.pathParam("snapshot"), "snapshot", 0));
        int from = (int) Math.min(Integer.MAX_VALUE, Params.number(ctx.queryParam("from"), "from", 0));
        SnapshotStatistics.Progress progress = statistics.of(spec, snapshot);
        if (progress.complete() && Etags.notModified(ctx, "snapshot " + key + " " + snapshot.snapshotId() + " from " + from, false)) {
            return;
        }
        StringBuilder body = new StringBuilder();
        body.append(Layout.facts("snapshot", Long.toString(snapshot.snapshotId()), "shards", Integer.toString(snapshot.shards().size()),
                "samples", Long.toString(snapshot.sampleCount()), "size", Layout.bytes(snapshot.bytes())));
        body.append("<p>").append(Layout.link(Paths.samples(key, snapshot.snapshotId()), "browse samples")).append(" \u00b7 ")
                .append(Layout.link(Paths.diff(key, Math.max(0, snapshot.snapshotId() - 1), snapshot.snapshotId()), "what this snapshot changed"))
                .append(" \u00b7 ").append(Layout.link(Paths.version(key), "all snapshots")).append("</p>");
        body.append("<h2>Statistics</h2>").append(statistics(spec, progress));
        body.append("<h2>Shards</h2>").append(shardTable(key, snapshot.shards(), from, Paths.snapshot(key, snapshot.snapshotId())));
        ctx.html(Layout.page("Snapshot " + snapshot.snapshotId() + " of " + key.dataset() + "/" + key.version(),
                List.of(crumb("datasets", "/"), crumb(key.dataset() + "/" + key.version(), Paths.version(key)),
                        crumb("snapshot " + snapshot.snapshotId(), null)), body.toString()));
    }

    Snapshot snapshot(VersionKey key, long id) {
        try {
            return access.snapshot(key, id);
        } catch (SnapshotExpiredException e) {
            throw new io.javalin.http.GoneResponse(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new NotFoundResponse(e.getMessage());
        }
    }

    static String statistics(DatasetSpec spec, SnapshotStatistics.Progress progress) {
        StringBuilder out = new StringBuilder();
        if (!progress.complete()) {
            out.append("<p id=\"stats-progress\" data-refresh-seconds=\"2\" class=\"muted\">Computing: ")
                    .append(progress.shardsDone()).append(" of ").append(progress.shardsTotal())
                    .append(" shards read (each shard once, then cached). This page reloads until done.</p>");
            progress.lastError().ifPresent(e -> out.append("<p class=\"badge bad\">").append(Html.text(e)).append("</p>"));
        }
        ShardStats s = progress.merged();
        if (s.samples() == 0) {
            return out.append("<p class=\"muted\">No samples counted yet.</p>").toString();
        }
        out.append(Layout.facts("samples counted", Long.toString(s.samples()), "produced from",
                Instant.ofEpochMilli(s.firstProducedAt()).toString(), "produced to", Instant.ofEpochMilli(s.lastProducedAt()).toString(),
                "devices", s.devices().size() + (s.devicesOther() > 0 ? " (+ more)" : "")));
        if (spec.labelTensor() != null) {
            out.append("<h2>Samples per ").append(Html.text(spec.labelTensor())).append("</h2><div id=\"label-histogram\">")
                    .append(SvgCharts.bars(sorted(s.labels()), 40)).append("</div>");
            if (s.labelsOther() > 0) {
                out.append("<p class=\"muted\">").append(s.labelsOther()).append(" samples have rarer labels not shown.</p>");
            }
        }
        out.append("<h2>Samples per device</h2>").append(SvgCharts.bars(sorted(s.devices()), 20));
        out.append("<h2>Tensors</h2><table id=\"tensor-stats\"><tr><th>tensor</th><th>dtype</th><th class=\"num\">min</th><th class=\"num\">max</th>")
                .append("<th class=\"num\">mean</th><th class=\"num\">NaN/inf</th><th class=\"num\">empty rows</th><th>shapes</th></tr>");
        s.tensors().forEach((name, t) -> out.append("<tr><td>").append(Html.text(name)).append("</td><td>").append(Html.text(t.dtype()))
                .append("</td><td class=\"num\">").append(number(t.min())).append("</td><td class=\"num\">").append(number(t.max()))
                .append("</td><td class=\"num\">").append(number(t.mean())).append("</td><td class=\"num\">").append(t.nonFinite())
                .append("</td><td class=\"num\">").append(t.emptyRows()).append("</td><td class=\"mono\">")
                .append(Html.text(shapes(t))).append("</td></tr>"));
        return out.append("</table>").toString();
    }

    private static String shapes(TensorStats t) {
        return (t.ragged() ? "ragged: " : "") + String.join(", ", t.shapes()) + (t.shapesTruncated() ? ", \u2026" : "");
    }

    static String number(Double d) {
        return d == null ? "" : String.format(java.util.Locale.ROOT, "%.6g", d);
    }

    static Map<String, Long> sorted(Map<String, Long> counts) {
        Map<String, Long> out = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.put(e.getKey(), e.getValue()));
        return out;
    }

    static String shardTable(VersionKey key, List<ShardEntry> shards, int from, String pageUrl) {
        StringBuilder out = new StringBuilder("<table class=\"shards\"><tr><th>shard</th><th class=\"num\">samples</th><th class=\"num\">size</th>")
                .append("<th>produced</th><th>sha256</th></tr>");
        int end = Math.min(shards.size(), from + SHARDS_PER_PAGE);
        for (int i = Math.min(from, shards.size()); i < end; i++) {
            ShardEntry s = shards.get(i);
            String href = Paths.shard(key, s.id());
            out.append("<tr data-href=\"").append(Html.text(href)).append("\"><td class=\"mono\">").append(Layout.link(href, s.id().laneAndSequence()))
                    .append("</td><td class=\"num\">").append(s.sampleCount()).append("</td><td class=\"num\">").append(Layout.bytes(s.bytes()))
                    .append("</td><td>").append(Html.text(Instant.ofEpochMilli(s.firstProducedAt()))).append(" \u2013 ")
                    .append(Html.text(Instant.ofEpochMilli(s.lastProducedAt()))).append("</td><td class=\"mono\">")
                    .append(Html.text(s.sha256().substring(0, 16))).append("\u2026</td></tr>");
        }
        out.append("</table>");
        if (shards.size() > SHARDS_PER_PAGE) {
            out.append("<div class=\"pager\">shards ").append(Math.min(from, shards.size())).append("\u2013").append(end).append(" of ").append(shards.size());
            if (from > 0) {
                out.append(" <a href=\"").append(Html.text(pageUrl + "?from=" + Math.max(0, from - SHARDS_PER_PAGE))).append("\">previous</a>");
            }
            if (end < shards.size()) {
                out.append(" <a href=\"").append(Html.text(pageUrl + "?from=" + end)).append("\">next</a>");
            }
            out.append("</div>");
        }
        return out.toString();
    }
}
