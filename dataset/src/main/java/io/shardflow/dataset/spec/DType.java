package io.shardflow.dataset.spec;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Element type of a tensor. Bytes are always little-endian, C order. The constant names match the
 * Avro {@code io.shardflow.schemas.DType} symbols so the two convert by name.
 */
public enum DType {
    BOOL(1, "bool"),
    UINT8(1, "uint8"),
    INT8(1, "int8"),
    INT16(2, "int16"),
    INT32(4, "int32"),
    INT64(8, "int64"),
    FLOAT32(4, "float32"),
    FLOAT64(8, "float64");

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
