package io.shardflow.gateway.http;

import io.shardflow.app.validate.RejectReason;
import io.shardflow.gateway.config.RequestLimits;
import io.shardflow.gateway.parse.TensorTypes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The API's contract, {@code openapi.json} (OpenAPI 3.1) on the classpath, with this instance's
 * limits written into it, so what a client reads is what the server enforces. The tests fuzz the
 * running server against exactly this document (Schemathesis), and check every route is in it.
 */
public final class OpenApiDocument {

    public static final String RESOURCE = "/io/shardflow/gateway/openapi.json";

    private OpenApiDocument() {
    }

    public static String render(RequestLimits limits) {
        String template;
        try (InputStream in = OpenApiDocument.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the jar");
            }
            template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return template.replace("\"${maxRequestBytes}\"", Long.toString(limits.maxRequestBytes()))
                .replace("\"${maxBatchSamples}\"", Integer.toString(limits.maxBatchSamples()))
                .replace("\"${maxSampleBytes}\"", Long.toString(limits.maxSampleBytes()))
                .replace("\"${dtypes}\"", quoted(TensorTypes.NAMES.stream()))
                .replace("\"${reasons}\"", quoted(Arrays.stream(RejectReason.values()).map(Enum::name)));
    }

    private static String quoted(Stream<String> names) {
        return names.map(name -> "\"" + name + "\"").collect(Collectors.joining(", "));
    }
}
