package io.shardflow.app.validate;

import io.shardflow.dataset.spec.Names;
import io.shardflow.schemas.Sample;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * Checks the fields of a sample that are not tensors: names, ids and attributes. It runs before
 * anything is looked up, because dataset and version become object-key segments and ids become
 * HDF5 strings: a name such as {@code ../etc} or an id holding a NUL must be refused here as bad
 * data, not discovered later by the catalog or the shard writer.
 */
final class FieldCheck {

    private final SampleLimits limits;

    FieldCheck(SampleLimits limits) {
        this.limits = limits;
    }

    Optional<Rejection> check(Sample sample) {
        if (!isName(sample.getDataset())) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "dataset name '%s' is invalid: expected %s",
                    sample.getDataset(), Names.DATASET_NAME.pattern()));
        }
        if (!isName(sample.getVersion())) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "version '%s' is invalid: expected %s",
                    sample.getVersion(), Names.DATASET_NAME.pattern()));
        }
        return checkId("sampleId", sample.getSampleId())
                .or(() -> checkId("deviceId", sample.getDeviceId()))
                .or(() -> checkAttributes(sample.getAttributes()));
    }

    /** UTF-8 bytes of the attribute keys and values: what they cost in the shard's byte budget. */
    static long attributeBytes(Map<String, String> attributes) {
        long total = 0;
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            total += e.getKey().getBytes(StandardCharsets.UTF_8).length + e.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        return total;
    }

    private Optional<Rejection> checkId(String field, String value) {
        if (value == null || value.isBlank()) {
            return Optional.of(Rejection.of(RejectReason.INVALID_FIELD, "%s must not be empty", field));
        }
        if (value.length() > limits.maxIdChars()) {
            return Optional.of(Rejection.of(RejectReason.ID_TOO_LONG, "%s has %d characters, limit is %d",
                    field, value.length(), limits.maxIdChars()));
        }
        return controlCharacter(value).map(at -> Rejection.of(RejectReason.INVALID_FIELD,
                "%s holds control character or lone surrogate U+%04X at index %d", field, (int) value.charAt(at), at));
    }

    private Optional<Rejection> checkAttributes(Map<String, String> attributes) {
        if (attributes.size() > limits.maxAttributes()) {
            return Optional.of(Rejection.of(RejectReason.TOO_MANY_ATTRIBUTES, "sample has %d attributes, limit is %d",
                    attributes.size(), limits.maxAttributes()));
        }
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            String key = e.getKey();
            String value = e.getValue();
            if (key.length() > limits.maxAttributeKeyChars()) {
                return Optional.of(Rejection.of(RejectReason.ATTRIBUTE_KEY_TOO_LONG, "an attribute key has %d characters, limit is %d",
                        key.length(), limits.maxAttributeKeyChars()));
            }
            if (value == null || value.length() > limits.maxAttributeValueChars()) {
                return Optional.of(Rejection.of(RejectReason.ATTRIBUTE_VALUE_TOO_LONG, "attribute '%s' has %s characters, limit is %d",
                        key, value == null ? "null" : value.length(), limits.maxAttributeValueChars()));
            }
            // Control characters would be escaped six-fold in the row's JSON, breaking the size bound.
            if (key.isEmpty() || controlCharacter(key).isPresent() || controlCharacter(value).isPresent()) {
                return Optional.of(Rejection.of(RejectReason.INVALID_FIELD,
                        "attribute '%s' has an empty key or a control character", key));
            }
        }
        return Optional.empty();
    }

    private static boolean isName(String value) {
        return value != null && Names.DATASET_NAME.matcher(value).matches();
    }

    /**
     * The first control character or lone UTF-16 surrogate: the shard writer refuses both (a NUL
     * cuts an HDF5 string, a lone surrogate has no UTF-8 form), so they must be refused here.
     */
    private static Optional<Integer> controlCharacter(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
            } else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }
}
