package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import io.shardflow.dataset.runs.CheckpointManifest;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import java.util.List;
import java.util.Set;

/**
 * Training runs and their saved checkpoints (runs/ in the bucket, read through the dataset module):
 * per step when it was saved, by how many ranks, its size, the reader position and the dataset
 * snapshot it was trained on, linked to that snapshot's page. Pinning and collecting are the
 * CLI's ({@code shardflow ckpt}); this page only reads.
 */
public final class RunsView {

    private final TrainingCheckpoints checkpoints;

    public RunsView(TrainingCheckpoints checkpoints) {
        this.checkpoints = checkpoints;
    }

    public void list(Context ctx) {
        List<String> runs = checkpoints.runs();
        StringBuilder body = new StringBuilder();
        if (runs.isEmpty()) {
            body.append("<p class=\"muted\">No training checkpoints in this bucket yet: trainers save them with "
                    + "<code>shardflow.checkpoints.Checkpoints.save</code>.</p>");
        } else {
            body.append("<table id=\"runs\"><tr><th>run</th><th class=\"num\">saved steps</th><th class=\"num\">newest step</th>"
                    + "<th>saved</th><th>trained on</th></tr>");
            for (String run : runs) {
                List<CheckpointManifest> saved = checkpoints.saved(run);
                CheckpointManifest newest = saved.isEmpty() ? null : saved.get(saved.size() - 1);
                body.append("<tr><td>").append(Layout.link("/runs/" + Html.url(run), run)).append("</td><td class=\"num\">")
                        .append(saved.size()).append("</td><td class=\"num\">").append(newest == null ? "" : newest.step())
                        .append("</td><td>").append(newest == null ? "" : Html.text(newest.savedAt().toString()))
                        .append("</td><td>").append(newest == null ? "" : snapshots(newest)).append("</td></tr>");
            }
            body.append("</table>");
        }
        ctx.html(Layout.page("Training runs", List.of(crumb("runs", null)), body.toString()));
    }

    public void run(Context ctx) {
        String run = Params.name(ctx.pathParam("run"), "run name");
        List<CheckpointManifest> saved = checkpoints.saved(run);
        if (saved.isEmpty()) {
            throw new NotFoundResponse("run " + run + " has no saved checkpoints");
        }
        Set<Long> pins = checkpoints.pins(run).keySet();
        StringBuilder body = new StringBuilder("<p class=\"muted\">Saved steps (a step exists once its manifest is written; "
                + "saves that did not finish are not shown). Resume with <code>Checkpoints.resume(\"")
                .append(Html.text(run)).append("\", reader=loader)</code>.</p>");
        body.append("<table id=\"steps\"><tr><th class=\"num\">step</th><th>saved</th><th class=\"num\">ranks</th>"
                + "<th class=\"num\">files</th><th class=\"num\">size</th><th>reader position</th><th>trained on</th><th></th></tr>");
        for (int i = saved.size() - 1; i >= 0; i--) {
            CheckpointManifest m = saved.get(i);
            body.append("<tr><td class=\"num\">").append(m.step()).append("</td><td>").append(Html.text(m.savedAt().toString()))
                    .append("</td><td class=\"num\">").append(m.worldSize()).append("</td><td class=\"num\">")
                    .append(m.files().size()).append("</td><td class=\"num\">").append(m.bytes()).append("</td><td>")
                    .append(Html.text(position(m))).append("</td><td>").append(snapshots(m)).append("</td><td>")
                    .append(pins.contains(m.step()) ? "<span class=\"badge ok\">pinned</span>" : "").append("</td></tr>");
        }
        body.append("</table>");
        ctx.html(Layout.page("Run " + run, List.of(crumb("runs", "/runs"), crumb(run, null)), body.toString()));
    }

    private static String snapshots(CheckpointManifest m) {
        StringBuilder out = new StringBuilder();
        for (CheckpointManifest.DatasetPin pin : m.datasets()) {
            if (out.length() > 0) {
                out.append(", ");
            }
            String href = "/datasets/" + Html.url(pin.dataset()) + "/" + Html.url(pin.version()) + "/snapshots/" + pin.snapshotId();
            out.append(Layout.link(href, pin.dataset() + "/" + pin.version() + " snapshot " + pin.snapshotId()));
        }
        return out.length() == 0 ? "<span class=\"muted\">no reader recorded</span>" : out.toString();
    }

    private static String position(CheckpointManifest m) {
        if (m.readerState() == null) {
            return "";
        }
        return "epoch " + m.readerState().path("epoch").asLong() + ": " + m.readerState().path("consumed").asLong() + " of "
                + m.readerState().path("samples").asLong();
    }
}
