package io.shardflow.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A temporary directory for downloaded shards, removed with everything in it on close. */
final class DatasetScratch implements AutoCloseable {

    private final Path dir;

    DatasetScratch(String purpose) {
        try {
            dir = Files.createTempDirectory("shardflow-" + purpose + "-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a scratch directory", e);
        }
    }

    Path dir() {
        return dir;
    }

    @Override
    public void close() {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // leftovers in the temp dir are harmless
        }
    }
}
