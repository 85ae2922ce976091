package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.shardflow.console.data.DatasetAccess;
import io.shardflow.console.data.DatasetAccess.VersionKey;
import io.shardflow.console.ops.ConsumerLag;
import io.shardflow.console.ops.ServiceHealth;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.dataset.log.CommitInfo;
import io.shardflow.dataset.log.EntryKind;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The pipeline at a glance: each service's health and meters, consumer lag per lane, the last seal of every dataset version. */
public final class OperationsView {

    private final DatasetAccess access;
    private final Map<String, URI> services;
    private final ServiceHealth health = new ServiceHealth();
    private final Optional<ConsumerLag> lag;

    public OperationsView(DatasetAccess access, Map<String, URI> services, Optional<ConsumerLag> lag) {
        this.access = access;
        this.services = services;
        this.lag = lag;
    }

    public void page(Context ctx) {
        StringBuilder body = new StringBuilder("<h2>Services</h2>");
        if (services.isEmpty()) {
            body.append("<p class=\"muted\">No service endpoints configured (--service NAME=http://HOST:PORT, the services' metrics.port).</p>");
        } else {
            body.append("<div class=\"cards\" id=\"services\">");
            services.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                ServiceHealth.Report r = health.check(e.getKey(), e.getValue());
                body.append("<div class=\"card\"><b>").append(Html.text(r.name())).append("</b> <span class=\"badge ")
                        .append(r.ready() ? "ok" : r.live() ? "warn" : "bad").append("\">").append(Html.text(r.status()))
                        .append("</span><div class=\"muted mono\">").append(Html.text(r.base())).append("</div><table>");
                r.meters().entrySet().stream().filter(m -> !m.getKey().contains("_bucket")).limit(40).forEach(m -> body.append("<tr><td class=\"mono\">")
                        .append(Html.text(m.getKey())).append("</td><td class=\"num\">").append(Html.text(SnapshotViews.number(m.getValue())))
                        .append("</td></tr>"));
                body.append("</table></div>");
            });
            body.append("</div>");
        }
        body.append("<h2>Consumer lag per lane</h2>");
        if (lag.isEmpty()) {
            body.append("<p class=\"muted\">Kafka is not configured for this console.</p>");
        } else {
            try {
                body.append("<table id=\"lag\"><tr><th>group</th><th>topic</th><th class=\"num\">lane (partition)</th>")
                        .append("<th class=\"num\">committed</th><th class=\"num\">end</th><th class=\"num\">lag</th></tr>");
                for (ConsumerLag.Lane l : lag.get().lanes()) {
                    body.append("<tr><td>").append(Html.text(l.group())).append("</td><td>").append(Html.text(l.topic()))
                            .append("</td><td class=\"num\">").append(l.partition()).append("</td><td class=\"num\">")
                            .append(l.committed() < 0 ? "none" : Long.toString(l.committed())).append("</td><td class=\"num\">").append(l.end())
                            .append("</td><td class=\"num\">").append(l.lag()).append("</td></tr>");
                }
                body.append("</table>");
            } catch (Exception e) {
                body.append("<p class=\"badge bad\">Kafka did not answer: ").append(Html.text(e.getMessage())).append("</p>");
            }
        }
        body.append("<h2>Last seal per dataset</h2><table id=\"last-seal\"><tr><th>dataset</th><th>latest snapshot</th>")
                .append("<th>last shard committed</th><th>by</th></tr>");
        for (String dataset : access.datasets()) {
            for (String version : access.versions(dataset)) {
                VersionKey key = new VersionKey(dataset, version);
                List<CommitInfo> history = access.history(key);
                Optional<CommitInfo> lastAppend = Optional.empty();
                for (int i = history.size() - 1; i >= 0 && lastAppend.isEmpty(); i--) {
                    lastAppend = history.get(i).kind() == EntryKind.APPEND ? Optional.of(history.get(i)) : Optional.empty();
                }
                Optional<CommitInfo> last = lastAppend;
                body.append("<tr><td>").append(Layout.link(Paths.version(key), dataset + "/" + version)).append("</td><td>")
                        .append(history.size()).append("</td><td>").append(Html.text(last.map(c -> c.committedAt().toString()).orElse("never")))
                        .append("</td><td>").append(Html.text(last.map(CommitInfo::committer).orElse(""))).append("</td></tr>");
            }
        }
        body.append("</table>");
        ctx.html(Layout.page("Operations", List.of(crumb("operations", null)), body.toString()));
    }
}
