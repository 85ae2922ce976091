package io.shardflow.reader;

import io.shardflow.dataset.log.ShardEntry;
import io.shardflow.dataset.shard.ShardDigest;
import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shard files on local disk, at most {@code maxBytes} of them, least recently used evicted first.
 * Files are named by their SHA-256 ({@code <sha256>.h5}), so identical shards are stored once and
 * a cache directory can be reused across runs (its files are indexed at start, oldest first).
 *
 * <p>Every download is verified against the commit log's SHA-256 and size before it enters the
 * cache; a cached file is verified again on every use unless {@code verifyCached} is off. A
 * mismatch removes the file and throws {@link ChecksumMismatchException} naming the shard.
 *
 * <p>Thread-safe; share one instance between the readers of one process rather than pointing
 * several instances at one directory (each would evict files the others count on).
 */
public final class ShardCache {

    private static final Logger log = LoggerFactory.getLogger(ShardCache.class);
    private static final Pattern CACHED_FILE = Pattern.compile("[0-9a-f]{64}\\.h5");

    private final ObjectStore store;
    private final Path dir;
    private final long maxBytes;
    private final boolean verifyCached;
    /** sha256 -> file size, in access order (eldest first). */
    private final LinkedHashMap<String, Long> files = new LinkedHashMap<>(16, 0.75f, true);
    /** sha256 -> pin count (see {@link #pin}). */
    private final Map<String, Integer> pinned = new HashMap<>();
    private final AtomicLong partials = new AtomicLong();
    private long totalBytes;
    private long hits;
    private long downloads;

    public ShardCache(ObjectStore store, Path dir, long maxBytes, boolean verifyCached) {
        this.store = Objects.requireNonNull(store, "store");
        this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath().normalize();
        if (maxBytes < 1) {
            throw new IllegalArgumentException("cache size must be >= 1 byte, got " + maxBytes);
        }
        this.maxBytes = maxBytes;
        this.verifyCached = verifyCached;
        try {
            Files.createDirectories(this.dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create shard cache dir " + this.dir, e);
        }
        indexExisting();
    }

    /** The local file holding this shard, downloaded (in one GET) and verified if it is not cached yet. */
    public Path fetch(ShardEntry shard) {
        Optional<Path> hit = cached(shard);
        if (hit.isPresent()) {
            return hit.get();
        }
        Path partial = newPartialFile(shard);
        try {
            store.download(shard.objectKey(), partial);
        } catch (RuntimeException e) {
            deleteQuietly(partial);
            throw e;
        }
        return admit(shard, partial);
    }

    /**
     * The cached file of this shard, verified unless {@code verifyCached} is off; empty if not cached.
     * The hash runs outside the lock, so readers ahead verify several cached shards at once.
     */
    public Optional<Path> cached(ShardEntry shard) {
        Path file = pathOf(shard);
        synchronized (this) {
            Long size = files.get(shard.sha256());
            if (size == null) {
                return Optional.empty();
            }
            if (!Files.isRegularFile(file)) {
                forget(shard.sha256(), file); // deleted behind our back
                return Optional.empty();
            }
        }
        if (verifyCached) {
            String actual;
            try {
                actual = ShardDigest.sha256(file);
            } catch (UncheckedIOException e) {
                if (e.getCause() instanceof NoSuchFileException) {
                    return Optional.empty(); // evicted by another reader meanwhile: download it again
                }
                throw e;
            }
            if (!actual.equals(shard.sha256())) {
                synchronized (this) {
                    forget(shard.sha256(), file);
                }
                throw new ChecksumMismatchException(shard, actual, true);
            }
        }
        synchronized (this) {
            hits++;
        }
        return Optional.of(file);
    }

    /**
     * A new file name in the cache directory to download this shard into, then hand to
     * {@link #admit}; unique, so downloads of several shards (or of one, twice) run at once.
     */
    public Path newPartialFile(ShardEntry shard) {
        return dir.resolve(shard.sha256() + ".h5.download-" + partials.incrementAndGet());
    }

    /**
     * Verifies a downloaded file against the commit log (SHA-256, then size) and moves it into the
     * cache; a file that does not match is deleted and {@link ChecksumMismatchException} thrown. The
     * hash runs outside the lock, so several downloads are verified at once.
     */
    public Path admit(ShardEntry shard, Path partial) {
        Path file = pathOf(shard);
        try {
            String actual = ShardDigest.sha256(partial);
            long size = Files.size(partial);
            if (!actual.equals(shard.sha256())) {
                Files.deleteIfExists(partial);
                throw new ChecksumMismatchException(shard, actual, false);
            }
            if (size != shard.bytes()) {
                // Same digest, other size: impossible unless the log entry itself is wrong.
                Files.deleteIfExists(partial);
                throw new IllegalStateException("shard " + shard.shardId() + " has " + size + " bytes but the commit log says "
                        + shard.bytes());
            }
            synchronized (this) {
                Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                downloads++;
                Long before = files.put(shard.sha256(), size);
                totalBytes += size - (before == null ? 0 : before);
                evictBeyondLimit(shard.sha256());
            }
            return file;
        } catch (IOException e) {
            deleteQuietly(partial);
            throw new UncheckedIOException("cannot cache shard " + shard.shardId() + " in " + dir, e);
        }
    }

    /**
     * Keeps this shard's file from eviction until as many {@link #unpin} calls: a reader pins the
     * shards it downloads ahead, so a small cache cannot evict one before it is read.
     */
    public synchronized void pin(ShardEntry shard) {
        pinned.merge(shard.sha256(), 1, Integer::sum);
    }

    public synchronized void unpin(ShardEntry shard) {
        pinned.computeIfPresent(shard.sha256(), (k, n) -> n == 1 ? null : n - 1);
    }

    /** Where this shard's file lives (or would) in the cache. */
    public Path pathOf(ShardEntry shard) {
        return dir.resolve(shard.sha256() + ".h5");
    }

    public synchronized long totalBytes() {
        return totalBytes;
    }

    public synchronized int fileCount() {
        return files.size();
    }

    public synchronized long hits() {
        return hits;
    }

    public synchronized long downloads() {
        return downloads;
    }

    public Path dir() {
        return dir;
    }

    /** Evicts least recently used files until the cache fits, never the one just added nor a pinned one. */
    private void evictBeyondLimit(String keep) {
        Iterator<Map.Entry<String, Long>> eldest = files.entrySet().iterator();
        while (totalBytes > maxBytes && eldest.hasNext()) {
            Map.Entry<String, Long> e = eldest.next();
            if (e.getKey().equals(keep) || pinned.containsKey(e.getKey())) {
                continue;
            }
            deleteQuietly(dir.resolve(e.getKey() + ".h5"));
            totalBytes -= e.getValue();
            eldest.remove();
            log.debug("Evicted {} from the shard cache ({} bytes left)", e.getKey(), totalBytes);
        }
    }

    private void forget(String sha256, Path file) {
        Long size = files.remove(sha256);
        if (size != null) {
            totalBytes -= size;
        }
        deleteQuietly(file);
    }

    private void indexExisting() {
        record Found(String sha256, long size, FileTime modified) {
        }
        List<Found> found = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path path : entries) {
                String name = path.getFileName().toString();
                if (CACHED_FILE.matcher(name).matches() && Files.isRegularFile(path)) {
                    found.add(new Found(name.substring(0, 64), Files.size(path), Files.getLastModifiedTime(path)));
                } else if (name.contains(".h5.download")) {
                    deleteQuietly(path); // left by a crash mid-download
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read shard cache dir " + dir, e);
        }
        found.sort((a, b) -> a.modified().compareTo(b.modified()));
        for (Found f : found) {
            files.put(f.sha256(), f.size());
            totalBytes += f.size();
        }
        evictBeyondLimit("");
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            log.warn("Could not delete {}", path, e);
        }
    }
}
