package io.shardflow.gateway.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own refusals, made before a request reaches the routes (an ambiguous or invalid path, a
 * malformed header, a body that stopped arriving), as problem details like every other answer,
 * instead of Jetty's HTML page: a client parses one kind of error.
 */
final class ProblemErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback)
            throws IOException {
        int status = code >= 400 && code < 600 ? code : 500;
        Problem problem = Problem.of(status, status >= 500 ? "INTERNAL_ERROR" : "MALFORMED_REQUEST",
                message == null ? Problem.title(status) : message);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
        response.write(true, ByteBuffer.wrap(problem.body()), callback);
    }
}
