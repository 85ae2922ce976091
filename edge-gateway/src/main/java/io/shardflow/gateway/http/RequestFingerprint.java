package io.shardflow.gateway.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.eclipse.jetty.http.MultiPart;

/**
 * What an {@code Idempotency-Key} is bound to: the path, the media type and the body. A multipart
 * body is taken without its boundary, which a client picks anew for every request it builds (a
 * browser's or a phone's form data rebuilt on retry): the boundary parameter is dropped from the
 * media type and every delimiter line in the body is replaced by one fixed token before hashing.
 * A boundary never occurs inside a part (RFC 2046, 5.1.1), so no part's content changes.
 */
final class RequestFingerprint {

    private static final byte[] DELIMITER = "--\u0000boundary\u0000".getBytes(StandardCharsets.US_ASCII);

    private RequestFingerprint() {
    }

    static String of(String path, String contentType, byte[] body) {
        String media = contentType == null ? "" : contentType;
        String boundary = null;
        if (media.toLowerCase(Locale.ROOT).startsWith("multipart/")) {
            boundary = MultiPart.extractBoundary(media);
            media = media.substring(0, media.indexOf(';') < 0 ? media.length() : media.indexOf(';')).trim();
        }
        MessageDigest digest = sha256();
        digest.update((path + '\u0000' + media.toLowerCase(Locale.ROOT) + '\u0000').getBytes(StandardCharsets.UTF_8));
        if (boundary == null || boundary.isEmpty()) {
            digest.update(body);
        } else {
            hashWithoutBoundary(digest, body, ("--" + boundary).getBytes(StandardCharsets.US_ASCII));
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void hashWithoutBoundary(MessageDigest digest, byte[] body, byte[] delimiter) {
        int from = 0;
        for (int at = indexOf(body, delimiter, 0); at >= 0; at = indexOf(body, delimiter, from)) {
            digest.update(body, from, at - from);
            digest.update(DELIMITER);
            from = at + delimiter.length;
        }
        digest.update(body, from, body.length - from);
    }

    private static int indexOf(byte[] body, byte[] needle, int from) {
        outer:
        for (int i = from; i <= body.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (body[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
