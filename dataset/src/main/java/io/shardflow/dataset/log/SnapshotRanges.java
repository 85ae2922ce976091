package io.shardflow.dataset.log;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableSet;

/** Snapshot id sets in the compact text form expire entries store them in. */
public final class SnapshotRanges {

    private SnapshotRanges() {
    }

    /** "1-5,7,9-12": the compact form an expire entry stores its snapshot ids in. */
    public static String format(NavigableSet<Long> ids) {
        StringBuilder out = new StringBuilder();
        Long start = null;
        Long previous = null;
        for (long id : ids) {
            if (previous != null && id == previous + 1) {
                previous = id;
                continue;
            }
            appendRange(out, start, previous);
            start = id;
            previous = id;
        }
        appendRange(out, start, previous);
        return out.toString();
    }

    private static void appendRange(StringBuilder out, Long start, Long end) {
        if (start == null) {
            return;
        }
        if (out.length() > 0) {
            out.append(',');
        }
        out.append(start);
        if (!start.equals(end)) {
            out.append('-').append(end);
        }
    }

    public static List<Long> parse(String text) {
        List<Long> ids = new ArrayList<>();
        if (text == null || text.isBlank()) {
            return ids;
        }
        for (String part : text.split(",")) {
            int dash = part.indexOf('-');
            long from = Long.parseLong(dash < 0 ? part : part.substring(0, dash));
            long to = dash < 0 ? from : Long.parseLong(part.substring(dash + 1));
            for (long id = from; id <= to; id++) {
                ids.add(id);
            }
        }
        return ids;
    }
}
