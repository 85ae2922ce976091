package io.shardflow.gateway.violation;

import io.shardflow.ingest.validate.SampleDecoder;

/** A fixture that breaks the rules on purpose: the gateway importing ingest-app instead of the shared rules. Never run. */
final class GatewayValidatingLikeIngest {

    Class<?> decoder() {
        return SampleDecoder.class;
    }
}
