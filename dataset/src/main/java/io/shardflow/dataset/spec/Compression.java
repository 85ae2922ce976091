package io.shardflow.dataset.spec;

import java.util.Locale;

/**
 * How a dataset version's shard files compress their tensor data: HDF5 filters that h5py and
 * PyTables read with no extra package. Chosen once at {@code dataset create}; part of the spec but
 * not of its fingerprint, since compressed and uncompressed shards hold the same rows.
 *
 * <p>{@code gzip} is HDF5's deflate filter and {@code lzf} the LZF filter h5py ships (filter id
 * 32000); both run after the byte shuffle filter, which groups the bytes of equal significance and
 * makes numeric data compress far better.
 *
 * @param level gzip level 1-9, 0 for the other codecs
 */
public record Compression(Codec codec, int level) {

    public static final Compression NONE = new Compression(Codec.NONE, 0);
    /** h5py's default gzip level. */
    public static final int DEFAULT_GZIP_LEVEL = 4;

    public enum Codec { NONE, GZIP, LZF }

    public Compression {
        if (codec == Codec.GZIP ? level < 1 || level > 9 : level != 0) {
            throw new IllegalArgumentException("compression " + codec.name().toLowerCase(Locale.ROOT) + " level " + level
                    + " is invalid: gzip takes 1-9, none and lzf take no level");
        }
    }

    /** Parses {@code none}, {@code gzip}, {@code gzip:LEVEL} or {@code lzf}. */
    public static Compression parse(String text) {
        String value = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (value.equals("none")) {
            return NONE;
        }
        if (value.equals("lzf")) {
            return new Compression(Codec.LZF, 0);
        }
        if (value.equals("gzip")) {
            return new Compression(Codec.GZIP, DEFAULT_GZIP_LEVEL);
        }
        if (value.startsWith("gzip:")) {
            try {
                return new Compression(Codec.GZIP, Integer.parseInt(value.substring(5)));
            } catch (NumberFormatException e) {
                // reported below with the whole rule
            }
        }
        throw new IllegalArgumentException("unknown compression '" + text + "': expected none, gzip, gzip:LEVEL (1-9) or lzf");
    }

    public boolean isNone() {
        return codec == Codec.NONE;
    }

    /** The text {@link #parse} reads: {@code none}, {@code gzip:4}, {@code lzf}. */
    @Override
    public String toString() {
        return codec == Codec.GZIP ? "gzip:" + level : codec.name().toLowerCase(Locale.ROOT);
    }
}
