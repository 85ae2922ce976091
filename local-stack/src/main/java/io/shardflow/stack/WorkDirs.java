package io.shardflow.stack;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;

/** Work directories of local runs (quickstart, benchmark, chaos), which start from nothing every time. */
public final class WorkDirs {

    private WorkDirs() {
    }

    /** Deletes {@code dir} with everything under it, and creates it again, empty. */
    public static void wipe(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var walk = Files.walk(dir)) {
                for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        Files.createDirectories(dir);
    }
}
