package io.shardflow.gateway.http;

import io.shardflow.gateway.parse.BadRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.http.HttpException;

/**
 * Reads a request body, never more than the limit: a body declared too large is refused before a
 * byte is read, a chunked one as soon as it passes the limit, one arriving too slowly as soon as its
 * {@link BodyPace} says so. A client that stops sending is cut off by Jetty's idle timeout, which
 * surfaces here as an I/O error. Whatever the server's read throws becomes a 4xx naming it: a body
 * that could not be read is the client's or the network's doing, never a 500.
 */
final class BodyReader {

    private BodyReader() {
    }

    static byte[] read(InputStream in, long declaredLength, long maxBytes, BodyPace pace) {
        if (declaredLength > maxBytes) {
            throw tooLarge(declaredLength + " bytes", maxBytes);
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream(declaredLength > 0 ? (int) declaredLength : 8192);
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        long started = pace.now();
        for (int n = readSome(in, buffer); n >= 0; n = readSome(in, buffer)) {
            total += n;
            if (total > maxBytes) {
                throw tooLarge("more than " + maxBytes + " bytes", maxBytes);
            }
            body.write(buffer, 0, n);
            if (total != declaredLength) {
                pace.check(total, started);
            }
        }
        if (declaredLength >= 0 && total != declaredLength) {
            throw new BadRequest(400, "BODY_NOT_READ", "the body has " + total + " bytes, Content-Length said " + declaredLength);
        }
        return body.toByteArray();
    }

    private static int readSome(InputStream in, byte[] buffer) {
        try {
            return in.read(buffer);
        } catch (IOException e) {
            throw new BadRequest(400, "BODY_NOT_READ", "the body could not be read whole: " + e.getMessage());
        } catch (RuntimeException e) {
            // Jetty refuses a broken body (bad chunking, a timeout) with an unchecked HttpException carrying its status.
            int status = e instanceof HttpException http && http.getCode() >= 400 && http.getCode() < 500 ? http.getCode() : 400;
            throw new BadRequest(status, status == 408 ? "BODY_TOO_SLOW" : "BODY_NOT_READ", "the body could not be read whole: " + e.getMessage());
        }
    }

    private static BadRequest tooLarge(String size, long maxBytes) {
        return new BadRequest(413, "REQUEST_TOO_LARGE", "the body has " + size + "; the limit is " + maxBytes
                + " bytes (request.max.bytes): send fewer samples per request");
    }
}
