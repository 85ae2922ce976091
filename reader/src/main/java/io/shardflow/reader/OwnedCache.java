package io.shardflow.reader;

import io.shardflow.dataset.store.ObjectStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard cache a loader opened for itself: in the options' directory, or in a temporary one
 * that {@link #close} removes.
 *
 * @param temporaryDir the directory to remove on close, or null when the caller named one
 */
record OwnedCache(ShardCache cache, Path temporaryDir) implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OwnedCache.class);

    static OwnedCache open(ObjectStore store, ReaderOptions options) {
        Path temporary = null;
        Path dir = options.cacheDir();
        if (dir == null) {
            try {
                temporary = Files.createTempDirectory("shardflow-cache-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a temporary shard cache", e);
            }
            dir = temporary;
        }
        return new OwnedCache(new ShardCache(store, dir, options.cacheMaxBytes(), options.verifyCached()), temporary);
    }

    /** A cache the caller owns: nothing to remove. */
    static OwnedCache borrowed(ShardCache cache) {
        return new OwnedCache(cache, null);
    }

    @Override
    public void close() {
        if (temporaryDir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(temporaryDir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            log.warn("Could not remove the temporary shard cache {}", temporaryDir, e);
        }
    }
}
