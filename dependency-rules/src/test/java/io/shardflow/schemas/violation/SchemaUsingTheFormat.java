package io.shardflow.schemas.violation;

import io.shardflow.dataset.spec.DType;

/** A fixture that breaks the rules on purpose: the wire contract importing the storage format. Never run. */
final class SchemaUsingTheFormat {

    DType dtype() {
        return DType.FLOAT32;
    }
}
