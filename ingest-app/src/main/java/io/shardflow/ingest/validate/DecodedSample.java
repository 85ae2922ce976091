package io.shardflow.ingest.validate;

import io.shardflow.app.validate.Rejection;
import io.shardflow.app.validate.RejectReason;
import io.shardflow.schemas.Sample;
import java.util.Objects;

/** Result of decoding one record value: a sample, or the reason it is not one. */
public record DecodedSample(Sample sample, Rejection rejection) {

    public static DecodedSample of(Sample sample) {
        return new DecodedSample(Objects.requireNonNull(sample), null);
    }

    public static DecodedSample rejected(RejectReason reason, String detail) {
        return new DecodedSample(null, new Rejection(reason, detail));
    }

    public boolean isRejected() {
        return rejection != null;
    }
}
