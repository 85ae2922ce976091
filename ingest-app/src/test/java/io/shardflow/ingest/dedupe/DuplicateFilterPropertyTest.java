package io.shardflow.ingest.dedupe;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.common.utils.Utils;

/**
 * The filter over a real RocksDB window store against the rule it implements: with broker times
 * that never go back (the samples topic's append time), a (device, sample id) is a duplicate exactly
 * when the same pair was let through within one window before. At exactly one window the store's
 * retention has the last word: an entry that old still counts until a later record is stored, which
 * moves the store's time on and expires it.
 */
class DuplicateFilterPropertyTest {

    private static final long WINDOW_MS = 10_000;

    private record Arrival(String sampleId, long gapMs) {
    }

    @Property(tries = 60)
    void shouldDropAPairExactlyWhenItWasLetThroughAtMostAWindowBefore(@ForAll("arrivals") List<Arrival> arrivals) throws Exception {
        Path stateDir = Files.createTempDirectory("dedupe-property");
        Topology topology = new Topology();
        topology.addSource("in", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        topology.addProcessor("filter", FilterProcessor::new, "in");
        topology.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore("seen", Duration.ofMillis(WINDOW_MS),
                Duration.ofMillis(WINDOW_MS), false), Serdes.String(), Serdes.Long()), "filter");
        topology.addSink("out", "out", Serdes.String().serializer(), Serdes.String().serializer(), "filter");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "dedupe-property");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        long start = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
        try (TopologyTestDriver driver = new TopologyTestDriver(topology, props)) {
            TestInputTopic<String, String> in = driver.createInputTopic("in", Serdes.String().serializer(), Serdes.String().serializer());
            TestOutputTopic<String, String> out = driver.createOutputTopic("out", Serdes.String().deserializer(), Serdes.String().deserializer());
            Map<String, Long> letThrough = new HashMap<>();
            List<String> expected = new ArrayList<>();
            long now = start;
            long stored = start;
            for (Arrival arrival : arrivals) {
                now += arrival.gapMs();
                Long last = letThrough.get(arrival.sampleId());
                boolean duplicate = last != null && now - last <= WINDOW_MS && stored - last < WINDOW_MS;
                if (!duplicate) {
                    letThrough.put(arrival.sampleId(), now);
                    stored = now;
                }
                expected.add(duplicate ? "duplicate" : "new");
                in.pipeInput(arrival.sampleId(), arrival.sampleId(), now);
            }

            assertThat(out.readValuesToList()).isEqualTo(expected);
        } finally {
            Utils.delete(stateDir.toFile());
        }
    }

    /** Few ids, so they repeat; gaps that land on, just inside and just past the window's edge. */
    @Provide
    Arbitrary<List<Arrival>> arrivals() {
        Arbitrary<Long> gaps = Arbitraries.oneOf(Arbitraries.of(0L, 1L, WINDOW_MS - 1, WINDOW_MS, WINDOW_MS + 1, 3 * WINDOW_MS),
                Arbitraries.longs().between(0, WINDOW_MS / 2));
        return Combinators.combine(Arbitraries.strings().withChars("abcd").ofLength(1), gaps).as(Arrival::new).list().ofMaxSize(60);
    }

    private static final class FilterProcessor implements Processor<String, String, String, String> {
        private ProcessorContext<String, String> context;
        private DuplicateFilter filter;

        @Override
        public void init(ProcessorContext<String, String> context) {
            this.context = context;
            WindowStore<String, Long> seen = context.getStateStore("seen");
            this.filter = new DuplicateFilter(seen, Duration.ofMillis(WINDOW_MS));
        }

        @Override
        public void process(Record<String, String> record) {
            boolean duplicate = filter.isDuplicate("dataset", "v1", "device", record.value(), record.timestamp());
            context.forward(record.withValue(duplicate ? "duplicate" : "new"));
        }
    }
}
