package io.shardflow.dataset.pages;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A shard file's size, SHA-256 and page index, from one read of the file (or of its bytes in memory): the writer of a shard
 * hashes its bytes once more for the pages in the same pass that hashes the whole file, so the page
 * index costs a second SHA-256 over bytes already in memory, no second read.
 */
public record ShardFileDigest(long bytes, String sha256, PageIndex pageIndex) {

    private static final HexFormat HEX = HexFormat.of();

    /** Reads {@code file} once; pages of {@code pageSize} bytes ({@link PageIndex#DEFAULT_PAGE_SIZE} in writers). */
    public static ShardFileDigest of(Path file, int pageSize) {
        PageIndex.checkPageSize(pageSize);
        Hashing hashing = new Hashing(pageSize);
        byte[] buffer = new byte[Math.max(pageSize, 1 << 20)];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                hashing.update(buffer, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hash " + file, e);
        }
        return hashing.result();
    }

    /** As {@link #of(Path, int)} for a file's bytes in memory (a shard built there), from the buffer's position to its limit. */
    public static ShardFileDigest of(ByteBuffer bytes, int pageSize) {
        PageIndex.checkPageSize(pageSize);
        Hashing hashing = new Hashing(pageSize);
        ByteBuffer source = bytes.duplicate();
        // Copied out a page at most at a time (a digest fed a direct buffer copies it in 4 KiB pieces anyway).
        byte[] buffer = new byte[Math.min(source.remaining(), Math.min(pageSize, 1 << 16))];
        while (source.hasRemaining()) {
            int n = Math.min(buffer.length, source.remaining());
            source.get(buffer, 0, n);
            hashing.update(buffer, n);
        }
        return hashing.result();
    }

    /** The whole file's hash and its pages' in one pass over the bytes. */
    private static final class Hashing {
        private final int pageSize;
        private final MessageDigest whole = newSha256();
        private final MessageDigest page = newSha256();
        private final List<String> pages = new ArrayList<>();
        private long total;
        private int inPage;

        Hashing(int pageSize) {
            this.pageSize = pageSize;
        }

        void update(byte[] buffer, int n) {
            whole.update(buffer, 0, n);
            int at = 0;
            while (at < n) {
                int take = Math.min(n - at, pageSize - inPage);
                page.update(buffer, at, take);
                at += take;
                inPage += take;
                if (inPage == pageSize) {
                    pages.add(HEX.formatHex(page.digest()));
                    inPage = 0;
                }
            }
            total += n;
        }

        ShardFileDigest result() {
            if (inPage > 0) {
                pages.add(HEX.formatHex(page.digest()));
            }
            String sha = HEX.formatHex(whole.digest());
            return new ShardFileDigest(total, sha, new PageIndex(pageSize, total, sha, pages));
        }
    }

    /** Lowercase hex SHA-256 of {@code bytes}, e.g. of one page or of a page index object. */
    public static String sha256Hex(byte[] bytes, int offset, int length) {
        MessageDigest sha = newSha256();
        sha.update(bytes, offset, length);
        return HEX.formatHex(sha.digest());
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
