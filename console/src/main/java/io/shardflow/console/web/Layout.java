package io.shardflow.console.web;

import java.util.List;

/**
 * The frame of every page: title, navigation, breadcrumbs. Styles and the one script are files served
 * from the console itself ({@code /static/}), never a CDN, so the console works with no network, and
 * the Content-Security-Policy ({@link io.shardflow.console.AccessGuard}) can forbid inline script.
 */
public final class Layout {

    /** One breadcrumb: a label and the link it goes to (null for the current page). */
    public record Crumb(String label, String href) {
    }

    private Layout() {
    }

    public static String page(String title, List<Crumb> crumbs, String body) {
        StringBuilder out = new StringBuilder(body.length() + 2048);
        out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>").append(Html.text(title)).append(" \u2013 shardflow</title>")
                .append("<link rel=\"stylesheet\" href=\"/static/console.css\">")
                .append("<script src=\"/static/console.js\" defer></script></head><body>")
                .append("<header><a class=\"brand\" href=\"/\">shardflow</a><nav>")
                .append("<a href=\"/\">Datasets</a><a href=\"/runs\">Runs</a><a href=\"/dead-letters\">Dead letters</a>")
                .append("<a href=\"/operations\">Operations</a></nav></header>");
        out.append("<main><nav class=\"crumbs\" aria-label=\"breadcrumbs\">");
        for (int i = 0; i < crumbs.size(); i++) {
            Crumb crumb = crumbs.get(i);
            if (i > 0) {
                out.append("<span class=\"sep\">/</span>");
            }
            if (crumb.href() == null) {
                out.append("<span>").append(Html.text(crumb.label())).append("</span>");
            } else {
                out.append("<a href=\"").append(Html.text(crumb.href())).append("\">").append(Html.text(crumb.label()))
                        .append("</a>");
            }
        }
        out.append("</nav><h1>").append(Html.text(title)).append("</h1>").append(body)
                .append("</main><footer>read-only console \u00b7 the commit log is the truth</footer></body></html>\n");
        return out.toString();
    }

    public static Crumb crumb(String label, String href) {
        return new Crumb(label, href);
    }

    /** A definition list of label/value pairs; values are escaped here. */
    public static String facts(String... labelValuePairs) {
        StringBuilder out = new StringBuilder("<dl class=\"facts\">");
        for (int i = 0; i + 1 < labelValuePairs.length; i += 2) {
            out.append("<dt>").append(Html.text(labelValuePairs[i])).append("</dt><dd>")
                    .append(Html.text(labelValuePairs[i + 1])).append("</dd>");
        }
        return out.append("</dl>").toString();
    }

    /** A link with escaped text and href. */
    public static String link(String href, String label) {
        return "<a href=\"" + Html.text(href) + "\">" + Html.text(label) + "</a>";
    }

    /** Bytes as people read them: 1.5 KiB, 35.4 MiB. */
    public static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
