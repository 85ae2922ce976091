package io.shardflow.gateway.parse;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.Tensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads samples from the JSON of the API ({@code /openapi.json}, schemas {@code SampleIn} and
 * {@code SampleBatch}): one sample object, or {@code {"samples": [...]}}. Tensor bytes are base64
 * ({@code data}); in a multipart request a tensor may name a part instead ({@code part}).
 *
 * <p>Strict on purpose: a field of the wrong type, an unknown field or bad base64 is a 400 naming
 * the field, never coerced. The parser's token budget is bounded by the sample limits, so a body
 * of a million tiny labels is refused while it is read, before it costs memory.
 */
public final class JsonSamples {

    private static final Set<String> SAMPLE_FIELDS = Set.of("sample_id", "device_id", "produced_at", "attributes", "tensors");
    private static final Set<String> TENSOR_FIELDS = Set.of("dtype", "shape", "data", "part");

    private final ObjectMapper mapper;

    /** @param maxTokens most JSON tokens one body may hold */
    public JsonSamples(long maxTokens) {
        JsonFactory factory = JsonFactory.builder().streamReadConstraints(StreamReadConstraints.builder()
                .maxTokenCount(maxTokens).maxNestingDepth(16).maxNumberLength(32).build()).build();
        this.mapper = new ObjectMapper(factory);
    }

    public List<ParsedSample> parse(byte[] body, RequestContext context) {
        return parse(body, context, part -> {
            throw BadRequest.malformed("a tensor names part '" + part + "', but a JSON request has no parts; send data (base64)");
        });
    }

    /** @param parts the bytes of a named multipart part; throws {@link BadRequest} when there is none */
    public List<ParsedSample> parse(byte[] body, RequestContext context, Function<String, byte[]> parts) {
        JsonNode root;
        try {
            root = mapper.readTree(body);
        } catch (StreamConstraintsException e) {
            // Too many tokens is a body too large for its sample limits (413); an absurd number or nesting is malformed (400).
            boolean tooMany = e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Token count");
            throw new BadRequest(tooMany ? 413 : 400, tooMany ? "REQUEST_TOO_LARGE" : "MALFORMED_REQUEST",
                    "the JSON breaks the request limits: " + e.getOriginalMessage());
        } catch (JsonProcessingException e) {
            throw BadRequest.malformed("the body is not valid JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw BadRequest.malformed("the body cannot be read as JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw BadRequest.malformed("the body must be a JSON object: one sample, or {\"samples\": [...]}");
        }
        List<JsonNode> samples = new ArrayList<>();
        if (root.has("samples")) {
            if (root.size() != 1 || !root.get("samples").isArray() || root.get("samples").isEmpty()) {
                throw BadRequest.malformed("a batch is {\"samples\": [...]} with at least one sample and no other field");
            }
            root.get("samples").forEach(samples::add);
        } else {
            samples.add(root);
        }
        if (samples.size() > context.maxSamples()) {
            throw new BadRequest(413, "TOO_MANY_SAMPLES", "the request holds " + samples.size() + " samples, the limit is " + context.maxSamples());
        }
        List<ParsedSample> parsed = new ArrayList<>(samples.size());
        for (int i = 0; i < samples.size(); i++) {
            parsed.add(sample(samples.get(i), root.has("samples") ? "samples[" + i + "]" : "sample", context, parts));
        }
        return parsed;
    }

    private static ParsedSample sample(JsonNode node, String where, RequestContext context, Function<String, byte[]> parts) {
        ObjectNode object = object(node, where);
        unknownFields(object, SAMPLE_FIELDS, where);
        String sampleId = text(object, "sample_id", where, true);
        String deviceId = text(object, "device_id", where, false);
        Instant producedAt = context.receivedAt();
        String producedText = text(object, "produced_at", where, false);
        if (producedText != null) {
            try {
                producedAt = OffsetDateTime.parse(producedText).toInstant();
            } catch (DateTimeParseException e) {
                throw BadRequest.malformed(where + ".produced_at must be an RFC 3339 time such as 2026-01-31T12:00:00Z");
            }
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        if (object.has("attributes")) {
            ObjectNode map = object(object.get("attributes"), where + ".attributes");
            for (Iterator<Map.Entry<String, JsonNode>> it = map.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                if (!entry.getValue().isTextual()) {
                    throw BadRequest.malformed(where + ".attributes." + entry.getKey() + " must be a string");
                }
                attributes.put(entry.getKey(), entry.getValue().textValue());
            }
        }
        if (!object.has("tensors")) {
            throw BadRequest.malformed(where + ".tensors is required");
        }
        List<Tensor> tensors = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = object(object.get("tensors"), where + ".tensors").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            tensors.add(tensor(entry.getKey(), entry.getValue(), where + ".tensors." + entry.getKey(), parts));
        }
        Sample sample = Sample.newBuilder().setDataset(context.dataset()).setVersion(context.version()).setSampleId(sampleId)
                .setDeviceId(context.deviceId()).setProducedAt(producedAt).setTensors(tensors).setAttributes(attributes).build();
        return new ParsedSample(sample, deviceId);
    }

    private static Tensor tensor(String name, JsonNode node, String where, Function<String, byte[]> parts) {
        ObjectNode object = object(node, where);
        unknownFields(object, TENSOR_FIELDS, where);
        var dtype = TensorTypes.parse(text(object, "dtype", where, true), where);
        List<Integer> shape = new ArrayList<>();
        if (object.has("shape")) {
            JsonNode dims = object.get("shape");
            if (!dims.isArray() || dims.size() > 8) {
                throw BadRequest.malformed(where + ".shape must be an array of at most 8 dimensions");
            }
            for (JsonNode dim : dims) {
                if (!dim.isInt() || dim.intValue() < 0) {
                    throw BadRequest.malformed(where + ".shape must hold non-negative integers");
                }
                shape.add(dim.intValue());
            }
        }
        String data = text(object, "data", where, false);
        String part = text(object, "part", where, false);
        if ((data == null) == (part == null)) {
            throw BadRequest.malformed(where + " needs exactly one of data (base64) or part (a multipart part's name)");
        }
        byte[] bytes;
        if (data != null) {
            try {
                bytes = Base64.getDecoder().decode(data);
            } catch (IllegalArgumentException e) {
                throw BadRequest.malformed(where + ".data is not base64: " + e.getMessage());
            }
        } else {
            bytes = parts.apply(part);
        }
        return new Tensor(name, dtype, shape, ByteBuffer.wrap(bytes));
    }

    private static ObjectNode object(JsonNode node, String where) {
        if (node == null || !node.isObject()) {
            throw BadRequest.malformed(where + " must be a JSON object");
        }
        return (ObjectNode) node;
    }

    private static void unknownFields(ObjectNode object, Set<String> known, String where) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw BadRequest.malformed(where + " has an unknown field '" + name + "' (known: " + String.join(", ", known) + ")");
            }
        }
    }

    private static String text(ObjectNode object, String field, String where, boolean required) {
        JsonNode value = object.get(field);
        if (value == null) {
            if (required) {
                throw BadRequest.malformed(where + "." + field + " is required");
            }
            return null;
        }
        if (!value.isTextual()) {
            throw BadRequest.malformed(where + "." + field + " must be a string");
        }
        return value.textValue();
    }
}
