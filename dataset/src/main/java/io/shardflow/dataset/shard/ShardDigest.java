package io.shardflow.dataset.shard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of shard files, the value that proves a replayed shard is the same shard. */
public final class ShardDigest {

    private ShardDigest() {
    }

    /** Lowercase hex SHA-256 of the file's bytes. */
    public static String sha256(Path file) {
        MessageDigest sha = newSha256();
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = Files.newInputStream(file)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                sha.update(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hash " + file, e);
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(newSha256().digest(bytes));
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
