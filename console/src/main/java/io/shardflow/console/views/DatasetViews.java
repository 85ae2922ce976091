package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.data.Timeline;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.console.web.SvgCharts;
import io.shardflow.dataset.log.EntryKind;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The list of datasets and the page of one dataset version: spec, schema evolution, growth, commits, tags. */
public final class DatasetViews {

    private static final int RECENT_COMMITS = 200;

    private final DatasetAccess access;
    private final Timeline timeline = new Timeline();

    public DatasetViews(DatasetAccess access) {
        this.access = access;
    }

    public void index(Context ctx) {
        StringBuilder body = new StringBuilder();
        List<String> datasets = access.datasets();
        if (datasets.isEmpty()) {
            body.append("<p class=\"muted\">No datasets yet. Create one with <code>bin/shardflow dataset create</code>.</p>");
        } else {
            body.append("<table id=\"datasets\"><tr><th>dataset</th><th>version</th><th class=\"num\">latest snapshot</th>")
                    .append("<th class=\"num\">shards</th><th class=\"num\">samples</th><th class=\"num\">size</th><th>last commit</th></tr>");
            for (String dataset : datasets) {
                for (String version : access.versions(dataset)) {
                    VersionKey key = new VersionKey(dataset, version);
                    Snapshot latest = access.latest(key);
                    List<io.shardflow.dataset.log.CommitInfo> history = access.history(key);
                    String last = history.isEmpty() ? "never" : history.get(history.size() - 1).committedAt().toString();
                    body.append("<tr data-href=\"").append(Html.text(Paths.version(key))).append("\"><td>")
                            .append(Html.text(dataset)).append("</td><td>").append(Layout.link(Paths.version(key), version))
                            .append("</td><td class=\"num\">").append(latest.snapshotId()).append("</td><td class=\"num\">")
                            .append(latest.shards().size()).append("</td><td class=\"num\">").append(latest.sampleCount())
                            .append("</td><td class=\"num\">").append(Layout.bytes(latest.bytes())).append("</td><td>")
                            .append(Html.text(last)).append("</td></tr>");
                }
            }
            body.append("</table>");
        }
        ctx.html(Layout.page("Datasets", List.of(crumb("datasets", null)), body.toString()));
    }

    public void version(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = requireSpec(access, key);
        List<Timeline.Point> points = timeline.of(key, access.log(key));
        Snapshot latest = access.latest(key);
        StringBuilder body = new StringBuilder();
        body.append(Layout.facts("spec fingerprint", spec.fingerprint(), "author", spec.author(), "description",
                spec.description(), "created", spec.createdAt().toString(), "compression", spec.compression().toString(),
                "label tensor", spec.labelTensor() == null ? "(none)" : spec.labelTensor(),
                "latest snapshot", latest.snapshotId() + ": " + latest.shards().size() + " shards, " + latest.sampleCount()
                        + " samples, " + Layout.bytes(latest.bytes())));
        body.append("<p>").append(Layout.link(Paths.snapshot(key, latest.snapshotId()), "latest snapshot"))
                .append(" \u00b7 ").append(Layout.link(Paths.samples(key, latest.snapshotId()), "browse samples"))
                .append(" \u00b7 ").append(Layout.link(Paths.quarantine(key), "quarantined shards")).append("</p>");
        body.append("<h2>Schema</h2>").append(tensorTable(spec)).append(evolution(key, spec));
        body.append("<h2>Growth</h2>").append(chart(points));
        body.append("<form class=\"inline\" method=\"get\" action=\"").append(Html.text(Paths.version(key))).append("/diff\">")
                .append("<label>from snapshot<input name=\"a\" type=\"number\" min=\"0\" value=\"")
                .append(Math.max(0, latest.snapshotId() - 1)).append("\"></label><label>to snapshot<input name=\"b\" type=\"number\" min=\"0\" value=\"")
                .append(latest.snapshotId()).append("\"></label><button type=\"submit\" id=\"diff-button\">Compare</button></form>");
        body.append(tags(key, points)).append(commits(key, points, ctx.queryParam("all") != null));
        ctx.html(Layout.page(key.dataset() + "/" + key.version(), List.of(crumb("datasets", "/"),
                crumb(key.dataset() + "/" + key.version(), null)), body.toString()));
    }

    static DatasetSpec requireSpec(DatasetAccess access, VersionKey key) {
        return access.spec(key).orElseThrow(() -> new NotFoundResponse("no dataset " + key.dataset() + "/" + key.version()));
    }

    static String tensorTable(DatasetSpec spec) {
        StringBuilder out = new StringBuilder("<table class=\"tensors\"><tr><th>tensor</th><th>dtype</th><th>shape</th><th>encoding</th></tr>");
        for (TensorSpec t : spec.tensors()) {
            out.append("<tr><td>").append(Html.text(t.name())).append(t.name().equals(spec.labelTensor()) ? " <span class=\"badge\">label</span>" : "")
                    .append("</td><td>").append(Html.text(t.dtype().numpyName())).append("</td><td class=\"mono\">")
                    .append(Html.text(t.shapeText().isEmpty() ? "scalar" : t.shapeText())).append("</td><td>")
                    .append(Html.text(t.encoding() == null ? "" : t.encoding())).append("</td></tr>");
        }
        return out.append("</table>").toString();
    }

    /** The layouts of every version of the dataset, each compared with the one before it. */
    private String evolution(VersionKey key, DatasetSpec current) {
        List<String> versions = access.versions(key.dataset());
        if (versions.size() < 2) {
            return "<p class=\"muted\">The only version of " + Html.text(key.dataset()) + ": no schema evolution yet.</p>";
        }
        StringBuilder out = new StringBuilder("<h2>Schema evolution</h2><table id=\"evolution\"><tr><th>version</th><th>created</th>")
                .append("<th>layout</th><th>changes from the version before</th></tr>");
        DatasetSpec previous = null;
        for (String version : versions) {
            Optional<DatasetSpec> spec = access.spec(new VersionKey(key.dataset(), version));
            if (spec.isEmpty()) {
                continue;
            }
            DatasetSpec s = spec.get();
            out.append("<tr><td>").append(Layout.link(Paths.version(new VersionKey(key.dataset(), version)), version))
                    .append(s.fingerprint().equals(current.fingerprint()) && version.equals(key.version()) ? " (this)" : "")
                    .append("</td><td>").append(Html.text(s.createdAt())).append("</td><td class=\"mono\">")
                    .append(Html.text(s.canonicalLayout().strip().replace('\n', ' '))).append("</td><td>")
                    .append(Html.text(previous == null ? "first version" : SchemaChanges.between(previous, s))).append("</td></tr>");
            previous = s;
        }
        return out.append("</table>").toString();
    }

    private static String chart(List<Timeline.Point> points) {
        if (points.isEmpty()) {
            return "<p class=\"muted\">No commits yet: snapshot 0 is empty.</p>";
        }
        List<Timeline.Point> shown = points.size() > 500 ? points.subList(points.size() - 500, points.size()) : points;
        List<Long> ids = shown.stream().map(Timeline.Point::snapshotId).toList();
        long maxSamples = shown.stream().mapToLong(Timeline.Point::samples).max().orElse(0);
        long maxBytes = shown.stream().mapToLong(Timeline.Point::bytes).max().orElse(0);
        long maxShards = shown.stream().mapToLong(Timeline.Point::shards).max().orElse(0);
        return SvgCharts.growth(ids, List.of(
                        new SvgCharts.Series("samples", "samples", shown.stream().map(p -> (double) p.samples()).toList()),
                        new SvgCharts.Series("bytes", "bytes", shown.stream().map(p -> (double) p.bytes()).toList()),
                        new SvgCharts.Series("shards", "shards", shown.stream().map(p -> (double) p.shards()).toList())),
                List.of(Long.toString(maxSamples), Layout.bytes(maxBytes), Long.toString(maxShards)));
    }

    private static String tags(VersionKey key, List<Timeline.Point> points) {
        List<Timeline.Point> tags = points.stream().filter(p -> p.kind() == EntryKind.TAG).toList();
        if (tags.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder("<h2>Tags</h2><table id=\"tags\"><tr><th>tag</th><th>snapshot</th><th>by</th><th>at</th></tr>");
        for (Timeline.Point tag : tags) {
            String snapshot = tag.details().getOrDefault("snapshot", "");
            out.append("<tr><td>").append(Html.text(tag.details().getOrDefault("tag", ""))).append("</td><td>")
                    .append(snapshot.matches("\\d{1,18}") ? Layout.link(Paths.snapshot(key, Long.parseLong(snapshot)), snapshot) : Html.text(snapshot))
                    .append("</td><td>").append(Html.text(tag.committer())).append("</td><td>").append(Html.text(tag.committedAt()))
                    .append("</td></tr>");
        }
        return out.append("</table>").toString();
    }

    private static String commits(VersionKey key, List<Timeline.Point> points, boolean all) {
        StringBuilder out = new StringBuilder("<h2>Snapshots</h2>");
        List<Timeline.Point> shown = all || points.size() <= RECENT_COMMITS ? points : points.subList(points.size() - RECENT_COMMITS, points.size());
        if (shown.size() < points.size()) {
            out.append("<p class=\"muted\">The last ").append(RECENT_COMMITS).append(" of ").append(points.size())
                    .append(" snapshots. <a href=\"").append(Html.text(Paths.version(key))).append("?all=1\">Show all</a></p>");
        }
        out.append("<table id=\"snapshots\"><tr><th class=\"num\">snapshot</th><th>kind</th><th>committed at</th><th>by</th>")
                .append("<th class=\"num\">shards +/-</th><th class=\"num\">samples +/-</th><th class=\"num\">samples</th>")
                .append("<th class=\"num\">size</th><th>details</th></tr>");
        for (int i = shown.size() - 1; i >= 0; i--) {
            Timeline.Point p = shown.get(i);
            out.append("<tr data-href=\"").append(Html.text(Paths.snapshot(key, p.snapshotId()))).append("\"><td class=\"num\">")
                    .append(Layout.link(Paths.snapshot(key, p.snapshotId()), Long.toString(p.snapshotId()))).append("</td><td>")
                    .append(Html.text(p.kind().wireName())).append("</td><td>").append(Html.text(p.committedAt())).append("</td><td>")
                    .append(Html.text(p.committer())).append("</td><td class=\"num\">+").append(p.shardsAdded()).append(" / -")
                    .append(p.shardsRemoved()).append("</td><td class=\"num\">+").append(p.samplesAdded()).append(" / -")
                    .append(p.samplesRemoved()).append("</td><td class=\"num\">").append(p.samples()).append("</td><td class=\"num\">")
                    .append(Layout.bytes(p.bytes())).append("</td><td>").append(details(p.details())).append("</td></tr>");
        }
        return out.append("</table>").toString();
    }

    static String details(Map<String, String> details) {
        StringBuilder out = new StringBuilder();
        details.forEach((k, v) -> out.append("<span class=\"mono\">").append(Html.text(k)).append("=")
                .append(Html.text(Html.shorten(v, 200))).append("</span> "));
        return out.toString();
    }
}
