package io.shardflow.gateway.http;

import io.shardflow.gateway.parse.BadRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads a request body, never more than the limit: a body declared too large is refused before a
 * byte is read, a chunked one as soon as it passes the limit. A client that stops sending is cut
 * off by Jetty (idle timeout, minimum data rate), which surfaces here as an I/O error.
 */
final class BodyReader {

    private BodyReader() {
    }

    static byte[] read(InputStream in, long declaredLength, long maxBytes) {
        if (declaredLength > maxBytes) {
            throw tooLarge(declaredLength + " bytes", maxBytes);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(declaredLength > 0 ? (int) declaredLength : 8192);
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                total += n;
                if (total > maxBytes) {
                    throw tooLarge("more than " + maxBytes + " bytes", maxBytes);
                }
                body.write(buffer, 0, n);
            }
        } catch (IOException e) {
            throw new BadRequest(400, "BODY_NOT_READ", "the body could not be read whole: " + e.getMessage());
        }
        if (declaredLength >= 0 && total != declaredLength) {
            throw new BadRequest(400, "BODY_NOT_READ", "the body has " + total + " bytes, Content-Length said " + declaredLength);
        }
        return body.toByteArray();
    }

    private static BadRequest tooLarge(String size, long maxBytes) {
        return new BadRequest(413, "REQUEST_TOO_LARGE", "the body has " + size + "; the limit is " + maxBytes
                + " bytes (request.max.bytes): send fewer samples per request");
    }
}
