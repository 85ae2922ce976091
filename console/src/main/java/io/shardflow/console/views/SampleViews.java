package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.data.Cursor;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.data.SampleFilter;
import io.shardflow.console.data.SamplePager;
import io.shardflow.console.render.TensorSummary;
import io.shardflow.console.render.TensorValues;
import io.shardflow.console.render.Thumbnails;
import io.shardflow.console.web.Etags;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardContents;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The sample grid of a snapshot (pictures rendered on the server, cursor paging, filters by label,
 * device and produce time), one sample in full, and the pictures themselves.
 */
public final class SampleViews {

    static final int PAGE_SIZE = 48;
    static final int THUMB = 128;
    static final int FULL = 384;

    private final DatasetAccess access;
    private final SamplePager pager;
    private final SnapshotViews snapshots;

    public SampleViews(DatasetAccess access, SamplePager pager, SnapshotViews snapshots) {
        this.access = access;
        this.pager = pager;
        this.snapshots = snapshots;
    }

    public void grid(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = DatasetViews.requireSpec(access, key);
        long snapshotId = Params.number(ctx.pathParam("snapshot"), "snapshot", 0);
        var snapshot = snapshots.snapshot(key, snapshotId);
        SampleFilter filter = new SampleFilter(Params.text(ctx.queryParam("label"), "label"), Params.text(ctx.queryParam("device"), "device"),
                Params.time(ctx.queryParam("from"), "from"), Params.time(ctx.queryParam("to"), "to"));
        Cursor cursor;
        try {
            cursor = Cursor.parse(ctx.queryParam("cursor"));
        } catch (IllegalArgumentException e) {
            throw new Params.BadRequest(e.getMessage());
        }
        String query = "size=" + Html.url(nz(ctx.queryParam("size"))) + "&label=" + Html.url(nz(filter.label())) + "&device=" + Html.url(nz(filter.device())) + "&from="
                + Html.url(nz(ctx.queryParam("from"))) + "&to=" + Html.url(nz(ctx.queryParam("to")));
        if (Etags.notModified(ctx, "grid " + key + " " + snapshotId + " " + cursor + " " + query, false)) {
            return;
        }
        int size = (int) Math.max(1, Math.min(200, Params.number(ctx.queryParam("size"), "size", PAGE_SIZE)));
        SamplePager.Page page = pager.page(spec, snapshot, cursor, filter, size);
        Optional<TensorSpec> pictured = spec.tensors().stream()
                .filter(t -> Thumbnails.kind(t, t.hasFreeDimension() ? List.of() : t.shape()) != Thumbnails.Kind.NONE).findFirst();
        StringBuilder body = new StringBuilder();
        body.append("<form class=\"inline\" method=\"get\" id=\"filters\"><label>label<input name=\"label\" value=\"")
                .append(Html.text(nz(filter.label()))).append("\"></label><label>device<input name=\"device\" value=\"")
                .append(Html.text(nz(filter.device()))).append("\"></label><label>produced from<input name=\"from\" placeholder=\"2026-03-01T00:00:00Z\" value=\"")
                .append(Html.text(nz(ctx.queryParam("from")))).append("\"></label><label>to<input name=\"to\" value=\"")
                .append(Html.text(nz(ctx.queryParam("to")))).append("\"></label><button type=\"submit\">Filter</button></form>");
        body.append("<p class=\"muted\">").append(page.items().size()).append(" samples on this page; ").append(page.shardsRead())
                .append(" shards read").append(page.shardsSkipped() > 0 ? ", " + page.shardsSkipped() + " skipped by the log's time range or cached statistics" : "")
                .append(".</p><div class=\"grid\" id=\"sample-grid\">");
        for (SamplePager.Item item : page.items()) {
            ShardId id = item.shard().id();
            SampleRow row = item.sample();
            body.append("<a class=\"tile sample\" href=\"").append(Html.text(Paths.sample(key, id, item.row(), snapshotId))).append("\">");
            if (pictured.isPresent()) {
                body.append("<img loading=\"lazy\" alt=\"").append(Html.text(row.sampleId())).append("\" src=\"")
                        .append(Html.text(Paths.picture(key, id, item.row(), pictured.get().name(), THUMB))).append("\">");
            } else {
                TensorSpec first = spec.tensors().get(0);
                byte[] bytes = row.tensors().get(first.name());
                body.append("<div class=\"stats\">").append(Html.text(first.name() + ": " + (bytes == null ? "missing"
                        : TensorSummary.stats(first, bytes)))).append("</div>");
            }
            body.append("<div class=\"label\">").append(Html.text(label(spec, row))).append("</div><div class=\"device muted\">")
                    .append(Html.text(Html.shorten(row.deviceId(), 40))).append("</div></a>");
        }
        body.append("</div><div class=\"pager\">");
        if (!cursor.equals(Cursor.START)) {
            body.append("<a href=\"?").append(Html.text(query)).append("\">first page</a>");
        }
        page.next().ifPresent(next -> body.append("<a id=\"next-page\" href=\"?cursor=").append(next).append('&').append(Html.text(query))
                .append("\">next page</a>"));
        body.append("</div>");
        ctx.html(Layout.page("Samples of snapshot " + snapshotId, List.of(crumb("datasets", "/"),
                crumb(key.dataset() + "/" + key.version(), Paths.version(key)), crumb("snapshot " + snapshotId, Paths.snapshot(key, snapshotId)),
                crumb("samples", null)), body.toString()));
    }

    public void sample(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = DatasetViews.requireSpec(access, key);
        ShardId id = Params.shard(ctx, key);
        int rowIndex = (int) Math.min(Integer.MAX_VALUE, Params.number(ctx.pathParam("row"), "row", 0));
        DatasetAccess.LocatedShard located = access.shard(key, id).orElseThrow(() -> new NotFoundResponse("shard " + id + " is not in the log"));
        if (Etags.notModified(ctx, "sample " + located.entry().sha256() + " " + rowIndex + " " + ctx.queryParam("snapshot"), false)) {
            return;
        }
        ShardContents contents = access.contents(located.entry());
        if (rowIndex >= contents.rows().size()) {
            throw new NotFoundResponse("shard " + id + " has " + contents.rows().size() + " rows");
        }
        SampleRow row = contents.rows().get(rowIndex);
        long snapshotId = Params.number(ctx.queryParam("snapshot"), "snapshot", located.addedIn());
        StringBuilder body = new StringBuilder(Layout.facts("sample id", row.sampleId(), "device", row.deviceId(), "produced at",
                Instant.ofEpochMilli(row.producedAtMillis()).toString(), "label", label(spec, row), "shard", id.laneAndSequence(),
                "row", Integer.toString(rowIndex)));
        body.append("<p>").append(Layout.link(Paths.shard(key, id), "the shard")).append(" \u00b7 ")
                .append(rowIndex > 0 ? Layout.link(Paths.sample(key, id, rowIndex - 1, snapshotId), "previous row") + " \u00b7 " : "")
                .append(rowIndex + 1 < contents.rows().size() ? Layout.link(Paths.sample(key, id, rowIndex + 1, snapshotId), "next row") : "")
                .append("</p><h2>Attributes</h2>");
        if (row.attributes().isEmpty()) {
            body.append("<p class=\"muted\">none</p>");
        } else {
            body.append("<table id=\"attributes\"><tr><th>key</th><th>value</th></tr>");
            row.attributes().entrySet().stream().sorted(java.util.Map.Entry.comparingByKey()).forEach(e -> body.append("<tr><td>")
                    .append(Html.text(e.getKey())).append("</td><td>").append(Html.text(e.getValue())).append("</td></tr>"));
            body.append("</table>");
        }
        body.append("<h2>Tensors</h2>");
        for (TensorSpec tensor : spec.tensors()) {
            byte[] bytes = row.tensors().get(tensor.name());
            List<Integer> shape = row.shapes().get(tensor.name());
            body.append("<section class=\"tensor\"><h3>").append(Html.text(tensor.name())).append(" <span class=\"muted\">")
                    .append(Html.text(tensor.dtype().numpyName() + " " + TensorSummary.shape(tensor, shape))).append("</span></h3>");
            if (bytes == null) {
                body.append("<p class=\"muted\">missing in this row</p></section>");
                continue;
            }
            Thumbnails.Kind kind = Thumbnails.kind(tensor, shape != null ? shape : tensor.shape());
            if (kind != Thumbnails.Kind.NONE) {
                body.append("<div class=\"big\"><img alt=\"").append(Html.text(tensor.name())).append("\" src=\"")
                        .append(Html.text(Paths.picture(key, id, rowIndex, tensor.name(), FULL))).append("\"></div>");
                if (kind == Thumbnails.Kind.SCALED_PIXELS) {
                    body.append("<p class=\"muted\">drawn scaled from its own min..max to 0..255</p>");
                }
            }
            body.append("<p>").append(Html.text(TensorSummary.stats(tensor, bytes))).append("</p>");
            if (kind == Thumbnails.Kind.NONE || tensor.dtype() != io.shardflow.dataset.spec.DType.BYTES) {
                body.append("<pre class=\"slice\">").append(Html.text(TensorSummary.slice(tensor, bytes))).append("</pre>");
            }
            body.append("</section>");
        }
        ctx.html(Layout.page("Sample " + row.sampleId(), List.of(crumb("datasets", "/"), crumb(key.dataset() + "/" + key.version(),
                Paths.version(key)), crumb("snapshot " + snapshotId, Paths.samples(key, snapshotId)), crumb("sample", null)), body.toString()));
    }

    public void picture(Context ctx) {
        VersionKey key = Params.version(ctx);
        DatasetSpec spec = DatasetViews.requireSpec(access, key);
        ShardId id = Params.shard(ctx, key);
        int rowIndex = (int) Math.min(Integer.MAX_VALUE, Params.number(ctx.pathParam("row"), "row", 0));
        TensorSpec tensor = spec.tensor(Params.tensor(ctx.pathParam("tensor"))).orElseThrow(() -> new NotFoundResponse("no such tensor"));
        int size = (int) Math.max(16, Math.min(1024, Params.number(ctx.queryParam("size"), "size", THUMB)));
        DatasetAccess.LocatedShard located = access.shard(key, id).orElseThrow(() -> new NotFoundResponse("shard " + id + " is not in the log"));
        if (Etags.notModified(ctx, "picture " + located.entry().sha256() + " " + rowIndex + " " + tensor.name() + " " + size, true)) {
            return;
        }
        List<SampleRow> rows = access.contents(located.entry()).rows();
        if (rowIndex >= rows.size()) {
            throw new NotFoundResponse("no such row");
        }
        SampleRow row = rows.get(rowIndex);
        byte[] bytes = row.tensors().get(tensor.name());
        List<Integer> shape = row.shapes().getOrDefault(tensor.name(), tensor.shape());
        Thumbnails.Picture picture = bytes == null ? null : Thumbnails.picture(tensor, shape, bytes, size).orElse(null);
        if (picture == null) {
            throw new NotFoundResponse("this tensor has no picture");
        }
        ctx.contentType(picture.contentType()).result(picture.bytes());
    }

    static String label(DatasetSpec spec, SampleRow row) {
        if (spec.labelTensor() == null) {
            return row.sampleId();
        }
        TensorSpec label = spec.tensor(spec.labelTensor()).orElseThrow();
        byte[] bytes = row.tensors().get(label.name());
        return bytes == null ? "" : TensorValues.label(label.dtype(), bytes, label.isScalar());
    }

    private static String nz(String s) {
        return s == null ? "" : s;
    }
}
