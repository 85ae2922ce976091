package io.shardflow.console.dlq;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroSerdeConfig;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Decodes a dead letter's value against the schema the registry holds for it (the Apicurio 3 serde:
 * the schema id is in the payload), as a generic record, so a record written with an incompatible or
 * unknown schema still shows its fields. What does not decode (not Avro, an id the registry does not
 * know) is shown as bytes with the reason it did not decode.
 */
public final class PayloadDecoder implements AutoCloseable {

    /** The decoded text (or a hex dump), whether it decoded, and the device id when the record has one. */
    public record Decoded(boolean decoded, String text, Optional<String> deviceId, Optional<String> sampleId, String problem) {
    }

    private final AvroKafkaDeserializer<Object> deserializer;

    /** @param serdeSettings {@code apicurio.registry.url} and any auth or TLS keys; null for none (nothing decodes) */
    public PayloadDecoder(Map<String, Object> serdeSettings) {
        if (serdeSettings == null) {
            this.deserializer = null;
            return;
        }
        AvroKafkaDeserializer<Object> d = new AvroKafkaDeserializer<>();
        Map<String, Object> settings = new HashMap<>(serdeSettings);
        settings.put(AvroSerdeConfig.USE_SPECIFIC_AVRO_READER, false);
        d.configure(settings, false);
        this.deserializer = d;
    }

    public Decoded decode(String topic, byte[] value) {
        if (value == null) {
            return new Decoded(false, "", Optional.empty(), Optional.empty(), "no value (null, or left out because it was too big)");
        }
        if (deserializer == null) {
            return new Decoded(false, hex(value), Optional.empty(), Optional.empty(), "no registry configured");
        }
        try {
            Object decoded = deserializer.deserialize(topic, new RecordHeaders(), value);
            StringBuilder text = new StringBuilder();
            render(decoded, text, 0);
            Optional<String> device = field(decoded, "deviceId");
            return new Decoded(true, text.toString(), device, field(decoded, "sampleId"), "");
        } catch (RuntimeException e) {
            return new Decoded(false, hex(value), Optional.empty(), Optional.empty(),
                    e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage()));
        }
    }

    private static Optional<String> field(Object decoded, String name) {
        if (decoded instanceof GenericRecord record && record.getSchema().getField(name) != null) {
            return Optional.ofNullable(record.get(name)).map(String::valueOf);
        }
        return Optional.empty();
    }

    /** An indented tree; byte fields (tensor data) are shown by size and first bytes, never whole. */
    private static void render(Object value, StringBuilder out, int depth) {
        String pad = "  ".repeat(depth);
        if (value instanceof GenericRecord record) {
            out.append(record.getSchema().getFullName()).append(" {\n");
            for (org.apache.avro.Schema.Field f : record.getSchema().getFields()) {
                out.append(pad).append("  ").append(f.name()).append(": ");
                render(record.get(f.name()), out, depth + 1);
                out.append('\n');
            }
            out.append(pad).append('}');
        } else if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            String text = printable(bytes);
            out.append(bytes.length).append(" bytes ").append(text != null ? "\"" + text + "\"" : hex(bytes, 16));
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            map.forEach((k, v) -> {
                out.append('\n').append(pad).append("  ").append(k).append(": ");
                render(v, out, depth + 1);
            });
            out.append(map.isEmpty() ? "}" : "\n" + pad + "}");
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            int i = 0;
            for (Object item : list) {
                if (i++ == 20) {
                    out.append('\n').append(pad).append("  \u2026 ").append(list.size() - 20).append(" more");
                    break;
                }
                out.append('\n').append(pad).append("  ");
                render(item, out, depth + 1);
            }
            out.append(list.isEmpty() ? "]" : "\n" + pad + "]");
        } else {
            out.append(value);
        }
    }

    /** Short bytes that are printable UTF-8 text (a string tensor) as that text; else null. */
    private static String printable(byte[] bytes) {
        if (bytes.length == 0 || bytes.length > 512) {
            return null;
        }
        try {
            String text = java.nio.charset.StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            return text.codePoints().allMatch(c -> c >= 0x20 && c != 0x7f) ? text : null;
        } catch (java.nio.charset.CharacterCodingException e) {
            return null;
        }
    }

    static String hex(byte[] bytes) {
        return hex(bytes, 512);
    }

    private static String hex(byte[] bytes, int max) {
        int n = Math.min(bytes.length, max);
        return HexFormat.ofDelimiter(" ").formatHex(bytes, 0, n) + (bytes.length > n ? " \u2026 (" + bytes.length + " bytes)" : "");
    }

    @Override
    public void close() {
        if (deserializer != null) {
            deserializer.close();
        }
    }
}
