package io.shardflow.dataset.pages;

import io.shardflow.dataset.layout.DatasetLayout;
import java.util.List;
import java.util.Objects;

/**
 * The SHA-256 of every fixed-size page of one shard file: what lets a reader verify the few pages
 * of a shard it fetches with ranged GETs, without the whole file (dataset/FORMAT.md, "Page
 * index"). Page {@code k} is bytes {@code [k * pageSize, min((k + 1) * pageSize, shardBytes))}, so a
 * shard of {@code n} bytes has {@code ceil(n / pageSize)} pages, the last one possibly short.
 *
 * <p>Stored as a create-only object next to its shard ({@link #keyOf}); the shard's commit entry
 * holds the SHA-256 of that object's bytes ({@code pageIndexSha256}), which is what makes the
 * page hashes trustworthy: the chain of trust goes log entry, page index, page.
 *
 * @param pageSize    bytes per page, a power of two from {@value #MIN_PAGE_SIZE} to {@value #MAX_PAGE_SIZE}
 * @param shardBytes  the shard file's size
 * @param shardSha256 the shard file's SHA-256, as its commit entry gives it
 * @param pages       lowercase hex SHA-256 of each page, in file order
 */
public record PageIndex(int pageSize, long shardBytes, String shardSha256, List<String> pages) {

    public static final int FORMAT_VERSION = 1;
    /**
     * 64 KiB: a sample of a few KB costs one or two pages, and the index stays under 0.1% of its
     * shard (67 bytes of JSON per page).
     */
    public static final int DEFAULT_PAGE_SIZE = 1 << 16;
    public static final int MIN_PAGE_SIZE = 1 << 12;
    public static final int MAX_PAGE_SIZE = 1 << 26;

    public PageIndex {
        checkPageSize(pageSize);
        if (shardBytes < 1) {
            throw new IllegalArgumentException("page index of a shard of " + shardBytes + " bytes: shards have at least one byte");
        }
        requireSha256(shardSha256, "shard sha256");
        pages = List.copyOf(Objects.requireNonNull(pages, "pages"));
        long expected = pageCount(shardBytes, pageSize);
        if (pages.size() != expected) {
            throw new IllegalArgumentException("page index of a shard of " + shardBytes + " bytes in pages of " + pageSize
                    + " must list " + expected + " pages, it lists " + pages.size());
        }
        for (String page : pages) {
            requireSha256(page, "page sha256");
        }
    }

    /** The key of the page index of the shard stored at {@code shardObjectKey}. */
    public static String keyOf(String shardObjectKey) {
        return DatasetLayout.pageIndexKey(shardObjectKey);
    }

    public static long pageCount(long bytes, int pageSize) {
        return (bytes + pageSize - 1) / pageSize;
    }

    public static void checkPageSize(int pageSize) {
        if (pageSize < MIN_PAGE_SIZE || pageSize > MAX_PAGE_SIZE || Integer.bitCount(pageSize) != 1) {
            throw new IllegalArgumentException("page size must be a power of two from " + MIN_PAGE_SIZE + " to "
                    + MAX_PAGE_SIZE + " bytes, got " + pageSize);
        }
    }

    public int pageCount() {
        return pages.size();
    }

    /** The first byte of page {@code page}. */
    public long pageStart(int page) {
        return (long) page * pageSize;
    }

    /** The byte count of page {@code page}: {@link #pageSize} but for a short last page. */
    public int pageLength(int page) {
        return (int) Math.min(pageSize, shardBytes - pageStart(page));
    }

    /** The page holding byte {@code offset}. */
    public int pageOf(long offset) {
        return Math.toIntExact(offset / pageSize);
    }

    static void requireSha256(String text, String what) {
        if (text == null || text.length() != 64) {
            throw new IllegalArgumentException(what + " must be 64 lowercase hex digits, got " + text);
        }
        for (int i = 0; i < 64; i++) {
            char c = text.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                throw new IllegalArgumentException(what + " must be 64 lowercase hex digits, got " + text);
            }
        }
    }
}
