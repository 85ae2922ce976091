package io.shardflow.sink.source;

import io.shardflow.schemas.Sample;

/** A sample as read from the samples topic, with the offset it sits at in its partition. */
public record SourcedSample(long offset, Sample sample) {
}
