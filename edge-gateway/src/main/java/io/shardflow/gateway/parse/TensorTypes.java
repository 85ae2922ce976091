package io.shardflow.gateway.parse;

import io.shardflow.schemas.DType;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** The dtype names of the HTTP API: the spec's lower-case names ({@code float32}), never {@code unknown}. */
public final class TensorTypes {

    public static final List<String> NAMES = Arrays.stream(DType.values()).filter(type -> type != DType.UNKNOWN)
            .map(type -> type.name().toLowerCase(Locale.ROOT)).toList();

    private TensorTypes() {
    }

    static DType parse(String name, String where) {
        if (name == null || !NAMES.contains(name)) {
            throw BadRequest.malformed(where + ".dtype must be one of " + String.join(", ", NAMES));
        }
        return DType.valueOf(name.toUpperCase(Locale.ROOT));
    }
}
