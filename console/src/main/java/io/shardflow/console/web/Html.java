package io.shardflow.console.web;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Escaping for everything the console writes into a page. Labels, device ids, attributes, dead-letter
 * payloads and committers come from devices and people outside our control, so every piece of text
 * goes through {@link #text} (element content and quoted attribute values alike) and every URL part
 * through {@link #url}: a hostile {@code <script>} label renders as the characters it is made of.
 */
public final class Html {

    private Html() {
    }

    /** Escapes {@code & < > " '} and drops characters that are not allowed in HTML text (C0 controls but tab, LF, CR). */
    public static String text(Object value) {
        String s = String.valueOf(value);
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> {
                    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f) {
                        out.append('\uFFFD');
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /** One query-string or path component, percent-encoded (then safe inside a quoted attribute too). */
    public static String url(Object value) {
        return URLEncoder.encode(String.valueOf(value), StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Cuts long text for a table cell, marking the cut; the full text stays available on the detail page. */
    public static String shorten(String value, int max) {
        if (value == null) {
            return "";
        }
        return value.length() <= max ? value : value.substring(0, Math.max(0, max - 1)) + "\u2026";
    }
}
