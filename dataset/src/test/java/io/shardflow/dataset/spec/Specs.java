package io.shardflow.dataset.spec;

import java.time.Instant;
import java.util.List;

/** Spec fixtures shared by tests in this module and, through the test-jar, by others. */
public final class Specs {

    public static final Instant CREATED_AT = Instant.parse("2026-01-02T03:04:05Z");

    private Specs() {
    }

    /** image float32 3x32x32 + label int64 scalar, labelled. */
    public static DatasetSpec imageSpec(String name, String version) {
        return new DatasetSpec(name, version,
                List.of(TensorSpec.parse("image:float32:3x32x32"), TensorSpec.parse("label:int64")),
                "label", "tests", "fixture", 0, false, CREATED_AT);
    }

    public static DatasetSpec spec(String name, String version, TensorSpec... tensors) {
        return new DatasetSpec(name, version, List.of(tensors), null, "tests", "fixture", 0, true, CREATED_AT);
    }
}
