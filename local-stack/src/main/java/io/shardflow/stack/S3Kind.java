package io.shardflow.stack;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which S3-compatible server backs the stack's bucket. */
public enum S3Kind {
    /** S3Proxy on a filesystem backend: a Java jar, starts in ~3 s, honours If-None-Match. */
    S3PROXY,
    /** MinIO, the production target; built from source by scripts/fetch-tools.sh. */
    MINIO;

    /** Parses {@code s3proxy} or {@code minio}, case-insensitively. */
    public static S3Kind parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown S3 server '" + text + "', expected one of "
                    + Arrays.stream(values()).map(k -> k.name().toLowerCase(Locale.ROOT))
                            .collect(Collectors.joining(", ")), e);
        }
    }
}
