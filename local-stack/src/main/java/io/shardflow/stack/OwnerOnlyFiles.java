package io.shardflow.stack;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Files that hold secrets (passwords, keys, settings with credentials): created readable by their
 * owner only, never briefly world-readable, and replaced atomically.
 */
public final class OwnerOnlyFiles {

    private OwnerOnlyFiles() {
    }

    /** Creates {@code dir} (and parents) and makes it owner-only (0700). */
    public static Path directory(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create owner-only directory " + dir, e);
        }
    }

    public static void write(Path file, String text) {
        write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code bytes} to a 0600 temp file beside {@code file}, then renames it over {@code file}. */
    public static void write(Path file, byte[] bytes) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.deleteIfExists(tmp);
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            Files.write(tmp, bytes);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write owner-only file " + file, e);
        }
    }
}
