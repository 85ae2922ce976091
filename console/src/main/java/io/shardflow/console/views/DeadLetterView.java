package io.shardflow.console.views;

import static io.shardflow.console.web.Layout.crumb;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.shardflow.console.dlq.DeadLetter;
import io.shardflow.console.dlq.DeadLetterReader;
import io.shardflow.console.dlq.PayloadDecoder;
import io.shardflow.console.dlq.RedriveAudit;
import io.shardflow.console.web.Html;
import io.shardflow.console.web.Layout;
import io.shardflow.console.web.Params;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Dead letters, newest first, grouped by reason, with their payloads decoded against the registry where
 * they decode, the device they came from and when; read-only (re-publishing is the CLI's
 * {@code shardflow dlq redrive}, which this page names with the exact arguments).
 */
public final class DeadLetterView {

    private static final int WINDOW = 2_000;
    private static final int SHOWN = 100;

    private final Optional<DeadLetterReader> reader;
    private final PayloadDecoder decoder;
    private final RedriveAudit audit;

    public DeadLetterView(Optional<DeadLetterReader> reader, PayloadDecoder decoder, RedriveAudit audit) {
        this.reader = reader;
        this.decoder = decoder;
        this.audit = audit;
    }

    public void list(Context ctx) {
        if (reader.isEmpty()) {
            ctx.html(Layout.page("Dead letters", List.of(crumb("dead letters", null)),
                    "<p class=\"muted\">Kafka is not configured for this console (--bootstrap or SHARDFLOW_BOOTSTRAP_SERVERS).</p>"));
            return;
        }
        String reason = Params.text(ctx.queryParam("reason"), "reason");
        List<DeadLetter> letters = reader.get().newest(WINDOW);
        Set<String> redriven = audit.redriven(reader.get().topic());
        Map<String, Long> byReason = new TreeMap<>();
        letters.forEach(l -> byReason.merge(l.reason(), 1L, Long::sum));
        StringBuilder body = new StringBuilder("<p class=\"muted\">The newest ").append(WINDOW).append(" records of each partition of ")
                .append(Html.text(reader.get().topic())).append(": ").append(letters.size()).append(" dead letters.</p>");
        body.append("<table id=\"reasons\"><tr><th>reason</th><th class=\"num\">dead letters</th></tr>");
        byReason.forEach((r, n) -> body.append("<tr><td>").append(Layout.link("/dead-letters?reason=" + Html.url(r), r))
                .append("</td><td class=\"num\">").append(n).append("</td></tr>"));
        body.append("</table>");
        List<DeadLetter> shown = letters.stream().filter(l -> reason == null || reason.isBlank() || reason.equals(l.reason()))
                .limit(SHOWN).toList();
        body.append("<h2>").append(reason == null || reason.isBlank() ? "Newest" : Html.text(reason)).append("</h2>");
        body.append("<table id=\"dead-letters\"><tr><th>record</th><th>at</th><th>reason</th><th>device</th><th>sample</th><th>detail</th><th></th></tr>");
        for (DeadLetter l : shown) {
            PayloadDecoder.Decoded decoded = decoder.decode(reader.get().topic(), l.value());
            String href = "/dead-letters/" + l.partition() + "/" + l.offset();
            body.append("<tr data-href=\"").append(Html.text(href)).append("\"><td class=\"mono\">").append(Layout.link(href, l.address()))
                    .append("</td><td>").append(Html.text(l.timestamp())).append("</td><td><span class=\"badge warn\">").append(Html.text(l.reason()))
                    .append("</span></td><td class=\"device\">").append(Html.text(decoded.deviceId().orElse(""))).append("</td><td>")
                    .append(Html.text(Html.shorten(decoded.sampleId().orElse(""), 40))).append("</td><td>")
                    .append(Html.text(Html.shorten(l.detail(), 160))).append("</td><td>")
                    .append(redriven.contains(l.address()) ? "<span class=\"badge ok\">redriven</span>" : "").append("</td></tr>");
        }
        body.append("</table><p class=\"muted\">To re-publish after fixing the cause: <code>bin/shardflow dlq redrive --reason REASON")
                .append(" --note \"why\"</code> (or <code>--record PARTITION/OFFSET</code>); every redrive is audited.</p>");
        ctx.html(Layout.page("Dead letters", List.of(crumb("dead letters", null)), body.toString()));
    }

    public void detail(Context ctx) {
        if (reader.isEmpty()) {
            throw new NotFoundResponse("Kafka is not configured for this console");
        }
        int partition = (int) Math.min(Integer.MAX_VALUE, Params.number(ctx.pathParam("partition"), "partition", 0));
        long offset = Params.number(ctx.pathParam("offset"), "offset", 0);
        DeadLetter l = reader.get().at(partition, offset)
                .orElseThrow(() -> new NotFoundResponse("no dead letter at " + partition + "/" + offset + " (gone by retention, or not written yet)"));
        PayloadDecoder.Decoded decoded = decoder.decode(l.topic(), l.value());
        Map<String, String> headers = new LinkedHashMap<>();
        l.headers().forEach((k, v) -> headers.put(k, new String(v, StandardCharsets.UTF_8)));
        StringBuilder body = new StringBuilder(Layout.facts("record", l.address(), "at", l.timestamp().toString(), "reason", l.reason(),
                "source", l.source(), "device", decoded.deviceId().orElse("(not decodable)"), "sample id", decoded.sampleId().orElse(""),
                "key", l.key() == null ? "(none)" : new String(l.key(), StandardCharsets.UTF_8), "value",
                l.value() == null ? "left out: " + l.dropped() : l.value().length + " bytes",
                "redriven", audit.exists(l) ? "yes (see audit/redrive/ in the bucket)" : "no"));
        body.append("<h2>Why</h2><pre id=\"detail\">").append(Html.text(l.detail())).append("</pre>");
        body.append("<h2>Payload ").append(decoded.decoded() ? "(decoded against the registry schema)" : "(not decoded: "
                + Html.text(decoded.problem()) + ")").append("</h2><pre id=\"payload\">").append(Html.text(decoded.text())).append("</pre>");
        if (!headers.isEmpty()) {
            body.append("<h2>Original headers</h2>").append(Layout.facts(headers.entrySet().stream()
                    .flatMap(e -> java.util.stream.Stream.of(e.getKey(), e.getValue())).toArray(String[]::new)));
        }
        body.append("<p class=\"muted\">Redrive this one: <code>bin/shardflow dlq redrive --record ").append(l.partition()).append('/')
                .append(l.offset()).append(" --note \"why\"</code></p>");
        ctx.html(Layout.page("Dead letter " + l.address(), List.of(crumb("dead letters", "/dead-letters"), crumb(l.address(), null)),
                body.toString()));
    }
}
