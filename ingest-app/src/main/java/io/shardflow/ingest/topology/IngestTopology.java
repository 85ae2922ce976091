package io.shardflow.ingest.topology;

import io.shardflow.ingest.dedupe.QueuePosition;
import io.shardflow.ingest.lane.LaneStateSerde;
import io.shardflow.ingest.seal.SealPolicy;
import io.shardflow.ingest.validate.SampleDecoder;
import io.shardflow.app.validate.SampleValidator;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.state.Stores;

/**
 * Wires the ingest topology: samples topic → {@link IngestProcessor} (with its lane and dedupe
 * stores) → shard-assignments topic or dead-letter topic. Keys and values stay raw bytes end to end
 * so a record that cannot be decoded still reaches the dead-letter topic byte for byte.
 */
public final class IngestTopology {

    static final String SOURCE = "samples-source";
    static final String PROCESSOR = "ingest";
    static final String ASSIGNMENTS_SINK = "assignments-sink";
    static final String DLQ_SINK = "dlq-sink";
    public static final String LANE_STORE = "shard-lanes";
    /**
     * Keyed by (dataset, version, deviceId, sampleId). The store of earlier releases,
     * {@code seen-sample-ids}, was keyed without the device; a new name keeps the two formats apart
     * (its changelog is simply no longer read), at the cost of forgetting one window of ids on upgrade.
     */
    public static final String DEDUPE_STORE = "seen-device-sample-ids";
    /**
     * Keyed by (dataset, version, deviceId, queue id): the highest queue seq seen and when
     * ({@code SequenceFilter}, values {@code QueuePosition}); idle entries expire after the horizon.
     */
    public static final String QUEUE_SEQUENCE_STORE = "device-queue-sequences";

    private IngestTopology() {
    }

    public record Topics(String samples, String assignments, String deadLetters) {
    }

    /**
     * @param maxRecordBytes       larger encoded records are dead-lettered unread, as oversize
     * @param maxDeadLetterBytes   largest dead letter written; see {@link DeadLetters}
     * @param queueSequenceHorizon how long a device queue's position is kept with nothing new from it
     */
    public record Settings(Topics topics, SealPolicy sealPolicy, Duration dedupeWindow, Duration tickInterval, long maxRecordBytes,
                           long maxDeadLetterBytes, Duration queueSequenceHorizon) {
    }

    public static Topology build(Settings settings, Supplier<SampleDecoder> decoders, SampleValidator validator,
                                 IngestMetrics metrics) {
        Topology topology = new Topology();
        topology.addSource(SOURCE, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer(),
                settings.topics().samples());
        topology.addProcessor(PROCESSOR, () -> new IngestProcessor(decoders.get(), validator, settings.sealPolicy(), metrics,
                settings.dedupeWindow(), settings.tickInterval(), settings.maxRecordBytes(),
                new DeadLetters(settings.maxDeadLetterBytes()), settings.queueSequenceHorizon()), SOURCE);
        // Cached: a lane's state changes with every record but only its last value per commit matters, so
        // the changelog gets one record per lane per commit instead of one per sample (flushed inside the
        // same exactly-once transaction as the assignments).
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(LANE_STORE),
                Serdes.String(), new LaneStateSerde()).withCachingEnabled(), PROCESSOR);
        // Window size equals retention: an id is remembered for exactly one dedupe window.
        topology.addStateStore(Stores.windowStoreBuilder(
                Stores.persistentWindowStore(DEDUPE_STORE, settings.dedupeWindow(), settings.dedupeWindow(), false),
                Serdes.String(), Serdes.Long()), PROCESSOR);
        // Cached like the lanes: only the last value per commit reaches the changelog, inside the same transaction.
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(QUEUE_SEQUENCE_STORE),
                Serdes.String(), new QueuePosition.StoreSerde()).withCachingEnabled(), PROCESSOR);
        topology.addSink(ASSIGNMENTS_SINK, settings.topics().assignments(), Serdes.ByteArray().serializer(),
                Serdes.ByteArray().serializer(), PROCESSOR);
        topology.addSink(DLQ_SINK, settings.topics().deadLetters(), Serdes.ByteArray().serializer(),
                Serdes.ByteArray().serializer(), PROCESSOR);
        return topology;
    }
}
