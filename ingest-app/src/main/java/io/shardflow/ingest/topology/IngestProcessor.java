package io.shardflow.ingest.topology;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.ingest.dedupe.DuplicateFilter;
import io.shardflow.ingest.dedupe.QueueSequence;
import io.shardflow.ingest.dedupe.SequenceFilter;
import io.shardflow.ingest.lane.LaneState;
import io.shardflow.ingest.seal.SealPolicy;
import io.shardflow.ingest.validate.DecodedSample;
import io.shardflow.app.validate.RejectReason;
import io.shardflow.app.validate.Rejection;
import io.shardflow.ingest.validate.SampleDecoder;
import io.shardflow.app.validate.SampleValidator;
import io.shardflow.schemas.Sample;
import io.shardflow.schemas.internal.SampleAssigned;
import io.shardflow.schemas.internal.SealReason;
import io.shardflow.schemas.internal.ShardEvent;
import io.shardflow.schemas.internal.ShardEventCodec;
import io.shardflow.schemas.internal.ShardSealed;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole ingest path for one input partition: decode, validate, drop duplicates, then put the
 * sample in its lane's open shard and seal shards as the policy says. Every input record leaves
 * exactly one trace: an assignment on the shard-assignments topic (naming the record, not copying it)
 * or a dead letter.
 */
final class IngestProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private static final Logger LOG = LoggerFactory.getLogger(IngestProcessor.class);

    private final SampleDecoder decoder;
    private final SampleValidator validator;
    private final SealPolicy sealPolicy;
    private final IngestMetrics metrics;
    private final Duration dedupeWindow;
    private final Duration tickInterval;
    private final long maxRecordBytes;
    private final DeadLetters deadLetters;
    private final Duration queueSequenceHorizon;

    private ProcessorContext<byte[], byte[]> context;
    /** The last spec seen and its fingerprint: the spec source hands out the same instance until it reloads. */
    private DatasetSpec lastSpec;
    private String lastFingerprint;
    /** The shard of the last event forwarded and its key bytes (see {@link #shardKey}). */
    private ShardId lastShard;
    private byte[] lastShardKey;
    private KeyValueStore<String, LaneState> lanes;
    private DuplicateFilter duplicates;
    private SequenceFilter resends;

    IngestProcessor(SampleDecoder decoder, SampleValidator validator, SealPolicy sealPolicy, IngestMetrics metrics,
                    Duration dedupeWindow, Duration tickInterval, long maxRecordBytes, DeadLetters deadLetters,
                    Duration queueSequenceHorizon) {
        this.decoder = decoder;
        this.validator = validator;
        this.sealPolicy = sealPolicy;
        this.metrics = metrics;
        this.dedupeWindow = dedupeWindow;
        this.tickInterval = tickInterval;
        this.maxRecordBytes = maxRecordBytes;
        this.deadLetters = deadLetters;
        this.queueSequenceHorizon = queueSequenceHorizon;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.lanes = context.getStateStore(IngestTopology.LANE_STORE);
        this.duplicates = new DuplicateFilter(context.getStateStore(IngestTopology.DEDUPE_STORE), dedupeWindow);
        this.resends = new SequenceFilter(context.getStateStore(IngestTopology.QUEUE_SEQUENCE_STORE), queueSequenceHorizon);
        context.schedule(tickInterval, PunctuationType.WALL_CLOCK_TIME, this::sealAgedShards);
        // On stream time (broker append time, as the entries' last-seen times): a partition that
        // receives nothing expires nothing, and nothing expires early after a pause of this process.
        context.schedule(sweepInterval(queueSequenceHorizon), PunctuationType.STREAM_TIME, this::expireQueuePositions);
    }

    /**
     * Screens the record, then assigns it. Whatever the screening throws is this record's fault and
     * dead-letters it, unless it is an outage, which fails the task so the record is retried. The
     * assignment itself is not guarded: it moves lane state and emits events together, and a failure
     * halfway must abort the transaction rather than leave half of it behind.
     */
    @Override
    public void process(Record<byte[], byte[]> record) {
        Optional<Screened> screened;
        try {
            screened = screen(record);
        } catch (RuntimeException e) {
            if (Outages.isOutage(e)) {
                throw e;
            }
            LOG.warn("record at {} failed unexpectedly; dead-lettering it", context.recordMetadata().orElse(null), e);
            reject(record, Rejection.of(RejectReason.PROCESSING_ERROR, "%s: %s", e.getClass().getName(), e.getMessage()));
            return;
        }
        screened.ifPresent(s -> assign(s.sample(), s.validated(), record.timestamp(), sourceOffset()));
    }

    /** Decodes, validates and dedupes the record; empty if it was dead-lettered. */
    private Optional<Screened> screen(Record<byte[], byte[]> record) {
        String topic = context.recordMetadata().map(m -> m.topic()).orElse("");
        if (record.value() != null && record.value().length > maxRecordBytes) {
            // Checked before decoding: a huge record costs nothing more than this comparison.
            reject(record, Rejection.of(RejectReason.OVERSIZE_SAMPLE, "record of %d bytes exceeds sample.max.bytes = %d",
                    record.value().length, maxRecordBytes));
            return Optional.empty();
        }
        DecodedSample decoded = decoder.decode(topic, record.headers(), record.value());
        if (decoded.isRejected()) {
            reject(record, decoded.rejection());
            return Optional.empty();
        }
        Sample sample = decoded.sample();
        SampleValidator.Validated validated = validator.validate(sample);
        if (validated.isRejected()) {
            reject(record, validated.rejection());
            return Optional.empty();
        }
        Optional<QueueSequence> position;
        try {
            position = QueueSequence.of(record.headers());
        } catch (QueueSequence.MalformedSequenceException e) {
            reject(record, Rejection.of(RejectReason.INVALID_FIELD, "%s", e.getMessage()));
            return Optional.empty();
        }
        // A resend from a device's queue, however late (SequenceFilter); both filters record what they see.
        boolean resend = position.isPresent()
                && resends.isResend(sample.getDataset(), sample.getVersion(), sample.getDeviceId(), position.get(), record.timestamp());
        // The record timestamp is broker append time: see DuplicateFilter.
        boolean duplicate = duplicates.isDuplicate(sample.getDataset(), sample.getVersion(), sample.getDeviceId(),
                sample.getSampleId(), record.timestamp());
        if (resend) {
            reject(record, Rejection.of(RejectReason.DUPLICATE_SAMPLE_ID,
                    "device '%s' resent sampleId '%s': queue %s entry %d is not after the last one seen", sample.getDeviceId(),
                    sample.getSampleId(), position.get().queueId(), position.get().seq()));
            return Optional.empty();
        }
        if (duplicate) {
            reject(record, Rejection.of(RejectReason.DUPLICATE_SAMPLE_ID,
                    "device '%s' sent sampleId '%s' already within the last %s", sample.getDeviceId(), sample.getSampleId(),
                    dedupeWindow));
            return Optional.empty();
        }
        return Optional.of(new Screened(sample, validated));
    }

    private record Screened(Sample sample, SampleValidator.Validated validated) {
    }

    private void assign(Sample sample, SampleValidator.Validated validated, long timestamp, long sourceOffset) {
        String laneKey = laneKey(sample.getDataset(), sample.getVersion());
        LaneState lane = Optional.ofNullable(lanes.get(laneKey)).orElseGet(LaneState::fresh);
        long now = context.currentSystemTimeMs();
        String fingerprint = fingerprintOf(validated.spec());

        Optional<SealReason> sealFirst = sealPolicy.sealBeforeAdding(lane.progress(), validated.budgetBytes());
        if (lane.hasOpenShard() && sealFirst.isPresent()) {
            lane = seal(sample.getDataset(), sample.getVersion(), lane, sealFirst.get(), timestamp);
        }
        int index = lane.sampleCount();
        lane = lane.add(validated.payloadBytes(), validated.budgetBytes(), now, fingerprint);
        ShardEvent event = new ShardEvent(sample.getDataset(), sample.getVersion(), lane(), lane.sequence(),
                new SampleAssigned(index, sourceOffset));
        forward(event, timestamp, IngestTopology.ASSIGNMENTS_SINK);
        metrics.accepted(validated.payloadBytes());

        Optional<SealReason> sealAfter = sealPolicy.sealAfterAdding(lane.progress());
        if (sealAfter.isPresent()) {
            lane = seal(sample.getDataset(), sample.getVersion(), lane, sealAfter.get(), timestamp);
        }
        lanes.put(laneKey, lane);
    }

    /** A fingerprint hashes the spec's layout text: worth computing once per spec, not once per record. */
    private String fingerprintOf(DatasetSpec spec) {
        if (spec != lastSpec) {
            lastFingerprint = spec.fingerprint();
            lastSpec = spec;
        }
        return lastFingerprint;
    }

    /** A tenth of the horizon, between a second and an hour: an entry lives at most that much past it. */
    static Duration sweepInterval(Duration horizon) {
        return Duration.ofMillis(Math.max(1_000, Math.min(3_600_000, horizon.toMillis() / 10)));
    }

    private void expireQueuePositions(long streamTime) {
        int expired = resends.expire(streamTime);
        if (expired > 0) {
            LOG.info("forgot {} device queue positions idle for longer than {} in lane {}", expired, queueSequenceHorizon, lane());
        }
    }

    private void sealAgedShards(long now) {
        List<KeyValue<String, LaneState>> aged = new ArrayList<>();
        try (KeyValueIterator<String, LaneState> all = lanes.all()) {
            all.forEachRemaining(entry -> {
                if (entry.value.hasOpenShard() && sealPolicy.sealOnTick(entry.value.progress(), now).isPresent()) {
                    aged.add(entry);
                }
            });
        }
        for (KeyValue<String, LaneState> entry : aged) {
            String[] datasetVersion = entry.key.split("\u0000", 2);
            lanes.put(entry.key, seal(datasetVersion[0], datasetVersion[1], entry.value, SealReason.AGE, now));
        }
    }

    private LaneState seal(String dataset, String version, LaneState lane, SealReason reason, long timestamp) {
        ShardEvent marker = new ShardEvent(dataset, version, lane(), lane.sequence(),
                new ShardSealed(lane.sampleCount(), lane.payloadBytes(), reason, lane.specFingerprint()));
        forward(marker, timestamp, IngestTopology.ASSIGNMENTS_SINK);
        metrics.sealed(reason);
        LOG.debug("sealed shard {} of {}/{} lane {}: {} samples, {} bytes, reason {}",
                lane.sequence(), dataset, version, lane(), lane.sampleCount(), lane.payloadBytes(), reason);
        return lane.sealed();
    }

    private void forward(ShardEvent event, long timestamp, String sink) {
        context.forward(new Record<>(shardKey(event), ShardEventCodec.encode(event), timestamp, new RecordHeaders()), sink);
    }

    /**
     * The record key, the shard id's text: every decision of a shard has the same one, so it is made
     * (name checks, zero-padded formatting, UTF-8) once per shard rather than once per sample. The
     * bytes are never changed after they are handed on, so handing the same array again is safe.
     */
    private byte[] shardKey(ShardEvent event) {
        ShardId last = lastShard;
        if (last == null || last.sequence() != event.getSequence() || last.lane() != event.getLane()
                || !last.dataset().equals(event.getDataset()) || !last.version().equals(event.getVersion())) {
            lastShard = new ShardId(event.getDataset(), event.getVersion(), event.getLane(), event.getSequence());
            lastShardKey = lastShard.toString().getBytes(StandardCharsets.UTF_8);
        }
        return lastShardKey;
    }

    private void reject(Record<byte[], byte[]> record, Rejection rejection) {
        metrics.rejected(rejection.reason());
        LOG.debug("rejected record: {} {}", rejection.reason(), rejection.detail());
        context.forward(deadLetters.of(record, rejection, context.recordMetadata().orElse(null)), IngestTopology.DLQ_SINK);
    }

    /**
     * Where the record being processed sits in its partition of the samples topic: the assignment names
     * it instead of carrying the sample, and shard-sink reads the bytes from there (docs/ARCHITECTURE.md § 1).
     */
    private long sourceOffset() {
        return context.recordMetadata().orElseThrow(() -> new IllegalStateException("no record metadata")).offset();
    }

    private int lane() {
        return context.taskId().partition();
    }

    private static String laneKey(String dataset, String version) {
        return dataset + '\u0000' + version;
    }
}
