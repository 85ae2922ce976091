package io.shardflow.dataset.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Jackson plumbing shared by the JSON codecs of this module. Not public API.
 *
 * <p>The codecs build trees by hand instead of binding records, so field order and number formats
 * are fixed by code, not by reflection order or annotations that a refactoring could change. The
 * pretty printer always uses {@code \n}: the platform line separator would make the bytes of the
 * same object differ between machines.
 */
public final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectWriter PRETTY = MAPPER.writer(
            new DefaultPrettyPrinter().withObjectIndenter(new DefaultIndenter("  ", "\n")));
    private static final ObjectWriter COMPACT = MAPPER.writer();

    private Json() {
    }

    /** A streaming parser over {@code in}, for documents too large to hold as one tree. */
    public static com.fasterxml.jackson.core.JsonParser parser(java.io.InputStream in) throws IOException {
        return MAPPER.getFactory().createParser(in);
    }

    /** The JSON value at the parser's current token (an object or array is read to its end). */
    public static JsonNode readTree(com.fasterxml.jackson.core.JsonParser parser) throws IOException {
        return MAPPER.readTree(parser);
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static byte[] pretty(JsonNode node) {
        try {
            return PRETTY.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise JSON tree", e);
        }
    }

    public static String compact(Object value) {
        try {
            return COMPACT.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot serialise JSON value", e);
        }
    }

    /** Parses a JSON object; {@code what} names the document in error messages. */
    public static JsonNode parseObject(byte[] bytes, String what) {
        JsonNode node;
        try {
            node = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(what + " is not valid JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException(what + " cannot be read: " + e.getMessage(), e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException(what + " must be a JSON object");
        }
        return node;
    }

    public static JsonNode required(JsonNode parent, String field, String what) {
        JsonNode value = parent.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(what + " has no field '" + field + "'");
        }
        return value;
    }

    public static String text(JsonNode parent, String field, String what) {
        JsonNode value = required(parent, field, what);
        if (!value.isTextual()) {
            throw new IllegalArgumentException(what + " field '" + field + "' must be a string");
        }
        return value.textValue();
    }

    /** A string field that may be absent or null. */
    public static String optionalText(JsonNode parent, String field, String what) {
        JsonNode value = parent.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException(what + " field '" + field + "' must be a string");
        }
        return value.textValue();
    }

    public static long longValue(JsonNode parent, String field, String what) {
        JsonNode value = required(parent, field, what);
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(what + " field '" + field + "' must be an integer");
        }
        return value.longValue();
    }

    public static int intValue(JsonNode parent, String field, String what) {
        long value = longValue(parent, field, what);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " field '" + field + "' is out of int range: " + value);
        }
        return (int) value;
    }

    public static boolean booleanValue(JsonNode parent, String field, String what) {
        JsonNode value = required(parent, field, what);
        if (!value.isBoolean()) {
            throw new IllegalArgumentException(what + " field '" + field + "' must be true or false");
        }
        return value.booleanValue();
    }

    public static Instant instant(JsonNode parent, String field, String what) {
        String text = text(parent, field, what);
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + " field '" + field + "' is not an ISO-8601 instant: " + text, e);
        }
    }

    public static JsonNode array(JsonNode parent, String field, String what) {
        JsonNode value = required(parent, field, what);
        if (!value.isArray()) {
            throw new IllegalArgumentException(what + " field '" + field + "' must be an array");
        }
        return value;
    }
}
