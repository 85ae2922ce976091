package io.shardflow.console.data;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A position in a snapshot's sample order: shard index and row, written {@code 12.340} in URLs. */
public record Cursor(int shard, int row) {

    private static final Pattern TEXT = Pattern.compile("(\\d{1,9})\\.(\\d{1,9})");
    public static final Cursor START = new Cursor(0, 0);

    public Cursor {
        if (shard < 0 || row < 0) {
            throw new IllegalArgumentException("a cursor is two non-negative numbers");
        }
    }

    /** Parses a cursor from a URL; anything but two small numbers is refused. */
    public static Cursor parse(String text) {
        if (text == null || text.isEmpty()) {
            return START;
        }
        Matcher m = TEXT.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("cursor must look like 12.340 (shard.row), got '" + text + "'");
        }
        return new Cursor(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
    }

    @Override
    public String toString() {
        return shard + "." + row;
    }
}
