package io.shardflow.gateway.parse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.eclipse.jetty.http.MultiPart;
import org.eclipse.jetty.http.MultiPartFormData;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.content.ByteBufferContentSource;

/**
 * Reads what a phone app sends: {@code multipart/form-data} with a {@code metadata} part (the same
 * JSON as a JSON request) and one part per tensor that the JSON names ({@code "part": "frame"}),
 * e.g. a JPEG straight from the camera, with no base64 in between. Every part must be used: a part
 * nothing names is a mistake in the app worth hearing about, not something to drop silently.
 *
 * <p>The body is already in memory, bounded by {@code request.max.bytes}; Jetty's parser splits it
 * without writing files.
 */
public final class MultipartSamples {

    public static final String METADATA = "metadata";
    private static final int MAX_PARTS = 10_000;

    private final JsonSamples json;

    public MultipartSamples(JsonSamples json) {
        this.json = json;
    }

    public List<ParsedSample> parse(byte[] body, String contentType, RequestContext context) {
        String boundary = MultiPart.extractBoundary(contentType);
        if (boundary == null || boundary.isEmpty()) {
            throw BadRequest.malformed("multipart/form-data needs a boundary parameter in Content-Type");
        }
        MultiPartFormData.Parser parser = new MultiPartFormData.Parser(boundary);
        parser.setMaxParts(MAX_PARTS);
        parser.setMaxMemoryFileSize(body.length + 1L);
        parser.setMaxLength(body.length + 1L);
        Map<String, byte[]> parts = new HashMap<>();
        try (MultiPartFormData.Parts parsed = parser.parse(new ByteBufferContentSource(ByteBuffer.wrap(body))).get()) {
            for (MultiPart.Part part : parsed) {
                String name = part.getName();
                if (name == null || name.isEmpty()) {
                    throw BadRequest.malformed("every part needs a name (Content-Disposition: form-data; name=...)");
                }
                if (parts.put(name, bytes(part)) != null) {
                    throw BadRequest.malformed("part '" + name + "' appears twice");
                }
            }
        } catch (ExecutionException e) {
            throw BadRequest.malformed("the multipart body cannot be parsed: " + e.getCause().getMessage());
        } catch (BadRequest e) {
            throw e;
        } catch (RuntimeException e) {
            // The body is whole in memory: whatever the parser trips over is in the body, not an outage.
            throw BadRequest.malformed("the multipart body cannot be parsed: " + e.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw BadRequest.malformed("interrupted while parsing the multipart body");
        }
        byte[] metadata = parts.remove(METADATA);
        if (metadata == null) {
            throw BadRequest.malformed("a multipart request needs a part named 'metadata' holding the samples' JSON");
        }
        Set<String> used = new HashSet<>();
        List<ParsedSample> samples = json.parse(metadata, context, name -> {
            byte[] bytes = parts.get(name);
            if (bytes == null) {
                throw BadRequest.malformed("a tensor names part '" + name + "', which the request does not have");
            }
            if (!used.add(name)) {
                throw BadRequest.malformed("part '" + name + "' is named by two tensors");
            }
            return bytes;
        });
        Set<String> unused = new HashSet<>(parts.keySet());
        unused.removeAll(used);
        if (!unused.isEmpty()) {
            throw BadRequest.malformed("parts " + unused + " are named by no tensor in metadata");
        }
        return samples;
    }

    private static byte[] bytes(MultiPart.Part part) {
        try {
            ByteBuffer buffer = Content.Source.asByteBuffer(part.createContentSource());
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException e) {
            throw BadRequest.malformed("part '" + part.getName() + "' cannot be read: " + e.getMessage());
        }
    }

}
