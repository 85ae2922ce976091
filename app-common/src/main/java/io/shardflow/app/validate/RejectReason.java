package io.shardflow.app.validate;

/**
 * Machine-readable reason a record went to the dead-letter topic; written as the
 * {@code shardflow.dlq.reason} header. Codes are part of the public contract: add, never rename.
 */
public enum RejectReason {
    NULL_VALUE,
    NOT_AVRO,
    UNKNOWN_SCHEMA,
    INCOMPATIBLE_SCHEMA,
    MISSING_FIELD,
    UNDECODABLE,
    INVALID_FIELD,
    UNKNOWN_DATASET,
    UNKNOWN_VERSION,
    MISSING_TENSOR,
    UNEXPECTED_TENSOR,
    DTYPE_MISMATCH,
    SHAPE_MISMATCH,
    BYTE_LENGTH_MISMATCH,
    OVERSIZE_SAMPLE,
    NON_FINITE_VALUE,
    DUPLICATE_SAMPLE_ID,
    /** sampleId or deviceId longer than {@code id.max.chars}. */
    ID_TOO_LONG,
    /** More attributes than {@code attributes.max.count}. */
    TOO_MANY_ATTRIBUTES,
    /** An attribute key longer than {@code attribute.key.max.chars}. */
    ATTRIBUTE_KEY_TOO_LONG,
    /** An attribute value longer than {@code attribute.value.max.chars}. */
    ATTRIBUTE_VALUE_TOO_LONG,
    /** A free dimension of a tensor is larger than the maximum its spec declares ({@code ?<=N}). */
    DIMENSION_OVER_MAXIMUM,
    /** A string tensor's bytes are not valid UTF-8. */
    INVALID_UTF8,
    /** A bytes tensor declared as an image is not a well-formed JPEG or PNG (structure check, see ImageCheck). */
    CORRUPT_IMAGE,
    /** Handling the record threw something unexpected; the detail names the exception class. */
    PROCESSING_ERROR
}
