package io.shardflow.gateway.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import java.time.Duration;

/**
 * An error answer in RFC 9457 problem-details form ({@code application/problem+json}): the status,
 * a title, a sentence for people ({@code detail}) and a stable {@code code} for machines.
 */
public record Problem(int status, String code, String detail, Duration retryAfter) {

    public static final String MEDIA_TYPE = "application/problem+json";
    static final ObjectMapper JSON = new ObjectMapper();

    public static Problem of(int status, String code, String detail) {
        return new Problem(status, code, detail, null);
    }

    public Problem retryAfter(Duration wait) {
        return new Problem(status, code, detail, wait);
    }

    public byte[] body() {
        ObjectNode node = JSON.createObjectNode();
        node.put("type", "about:blank");
        node.put("title", title(status));
        node.put("status", status);
        node.put("code", code);
        node.put("detail", detail == null ? "" : detail);
        try {
            return JSON.writeValueAsBytes(node);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public void send(Context ctx) {
        if (retryAfter != null) {
            ctx.header("Retry-After", Long.toString(retryAfterSeconds(retryAfter)));
        }
        ctx.status(status).contentType(MEDIA_TYPE).result(body());
    }

    /** Whole seconds, rounded up and at least one: a client waiting that long finds the bucket refilled. */
    static long retryAfterSeconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }

    static String title(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 415 -> "Unsupported Media Type";
            case 422 -> "Unprocessable Content";
            case 429 -> "Too Many Requests";
            case 503 -> "Service Unavailable";
            default -> "Error";
        };
    }
}
