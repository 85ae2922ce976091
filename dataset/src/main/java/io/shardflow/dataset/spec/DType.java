package io.shardflow.dataset.spec;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Element type of a tensor. Bytes are always little-endian, C order. The constant names match the
 * Avro {@code io.shardflow.schemas.DType} symbols so the two convert by name.
 *
 * <p>{@link #STRING} (UTF-8 text) and {@link #BYTES} (opaque, e.g. an encoded image) hold one value
 * of any length per sample; their item size is that of the stored unit, one byte.
 */
public enum DType {
    BOOL(1, "bool"),
    UINT8(1, "uint8"),
    INT8(1, "int8"),
    INT16(2, "int16"),
    INT32(4, "int32"),
    INT64(8, "int64"),
    FLOAT32(4, "float32"),
    FLOAT64(8, "float64"),
    /** IEEE 754 half precision, stored as the HDF5 16-bit float numpy reads as float16. */
    FLOAT16(2, "float16"),
    /** The top 16 bits of a float32; stored as uint16 bits (FORMAT.md), which numpy has no type for. */
    BFLOAT16(2, "bfloat16"),
    UINT16(2, "uint16"),
    UINT32(4, "uint32"),
    UINT64(8, "uint64"),
    STRING(1, "string"),
    BYTES(1, "bytes");

    private final int itemSize;
    private final String numpyName;

    DType(int itemSize, String numpyName) {
        this.itemSize = itemSize;
        this.numpyName = numpyName;
    }

    /** Bytes per element. */
    public int itemSize() {
        return itemSize;
    }

    /** The numpy dtype name, also used in JSON and in the shard's {@code shardflow_dtype} attribute. */
    public String numpyName() {
        return numpyName;
    }

    /** Whether one value per sample has a length of its own (text, encoded media) instead of a shape. */
    public boolean variableLength() {
        return this == STRING || this == BYTES;
    }

    /** Whether the values are IEEE-style floats, which may hold NaN or infinities. */
    public boolean floatingPoint() {
        return this == FLOAT16 || this == BFLOAT16 || this == FLOAT32 || this == FLOAT64;
    }

    /** Accepts the numpy name or the constant name in any case ("float32", "FLOAT32", "Float32"). */
    public static DType parse(String text) {
        if (text != null) {
            String lower = text.trim().toLowerCase(Locale.ROOT);
            for (DType type : values()) {
                if (type.numpyName.equals(lower)) {
                    return type;
                }
            }
        }
        throw new IllegalArgumentException("unknown dtype '" + text + "': expected one of "
                + Arrays.stream(values()).map(DType::numpyName).collect(Collectors.joining(", ")));
    }
}
