package io.shardflow.sink.spool;

import io.shardflow.dataset.layout.ShardId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sink instance's spool directory. Whatever is in it at start belongs to a previous run whose
 * offsets were never committed past it, so it is abandoned and removed: the records come again.
 */
public final class SpoolDirectory {

    private static final Logger LOG = LoggerFactory.getLogger(SpoolDirectory.class);

    private final Path root;
    private final AtomicLong bytes = new AtomicLong();

    private SpoolDirectory(Path root) {
        this.root = root;
    }

    public static SpoolDirectory open(Path root) {
        try {
            Files.createDirectories(root);
            long abandoned = deleteContents(root);
            if (abandoned > 0) {
                LOG.info("removed {} abandoned spool files from {}", abandoned, root);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare spool directory " + root, e);
        }
        return new SpoolDirectory(root);
    }

    public ShardSpool create(int partition, ShardId shard) {
        String name = shard.dataset() + "~" + shard.version() + "~" + shard.laneAndSequence().replace('/', '~') + ".spool";
        return new ShardSpool(root.resolve("p" + partition).resolve(name), bytes::addAndGet);
    }

    /** Bytes held by the spools created here and not closed yet: what the spool budget limits. */
    public long bytes() {
        return bytes.get();
    }

    public Path root() {
        return root;
    }

    /** Files left in the directory; used by tests and the abandoned-spool metric. */
    public long fileCount() {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long deleteContents(Path dir) throws IOException {
        long files;
        try (Stream<Path> walk = Files.walk(dir)) {
            var all = walk.filter(p -> !p.equals(dir)).sorted(Comparator.reverseOrder()).toList();
            files = all.stream().filter(Files::isRegularFile).count();
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        }
        return files;
    }
}
