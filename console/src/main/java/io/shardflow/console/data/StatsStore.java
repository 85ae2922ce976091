package io.shardflow.console.data;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-shard statistics on local disk, one JSON file per shard named by the shard file's SHA-256
 * ({@code <cache-dir>/stats/v1/<sha256>.json}). Content-addressed, so a file is never stale and the
 * directory can be shared by console restarts and copied between machines. Local rather than in the
 * bucket: the console is read-only and its S3 principal needs no write permission (docs/ARCHITECTURE.md § 8, invariant 9).
 * An unreadable file is treated as missing and computed again.
 */
public final class StatsStore {

    private static final Logger log = LoggerFactory.getLogger(StatsStore.class);
    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");

    private final Path dir;
    private final ObjectMapper json = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    public StatsStore(Path cacheDir) {
        this.dir = cacheDir.resolve("stats").resolve("v" + ShardStats.FORMAT_VERSION);
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the statistics cache " + dir, e);
        }
    }

    public Optional<ShardStats> read(String sha256) {
        Path file = fileOf(sha256);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            ShardStats stats = json.readValue(file.toFile(), ShardStats.class);
            return stats.formatVersion() == ShardStats.FORMAT_VERSION ? Optional.of(stats) : Optional.empty();
        } catch (IOException e) {
            log.warn("Ignoring unreadable statistics file {}: {}", file, e.getMessage());
            return Optional.empty();
        }
    }

    /** Writes through a temporary file and a rename, so a reader never sees half a file. */
    public void write(String sha256, ShardStats stats) {
        Path file = fileOf(sha256);
        try {
            Path tmp = Files.createTempFile(dir, sha256, ".tmp");
            json.writeValue(tmp.toFile(), stats);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write statistics " + file, e);
        }
    }

    public Path dir() {
        return dir;
    }

    private Path fileOf(String sha256) {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("not a sha256: " + sha256);
        }
        return dir.resolve(sha256 + ".json");
    }
}
