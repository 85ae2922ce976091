package io.shardflow.ingest.spec;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.ingest.support.TestSamples;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CatalogSpecSourceTest {

    private final InMemoryObjectStore backing = new InMemoryObjectStore();
    private final AtomicInteger reads = new AtomicInteger();
    private final ForwardingObjectStore counting = new ForwardingObjectStore(backing) {
        @Override
        public Optional<byte[]> get(String key) {
            reads.incrementAndGet();
            return super.get(key);
        }
    };
    private final MutableClock clock = new MutableClock();
    private final CatalogSpecSource source = new CatalogSpecSource(new DatasetCatalog(counting), clock, Duration.ofSeconds(10));

    @Test
    void shouldReadAKnownSpecOnceAndKeepIt() {
        new DatasetCatalog(backing).create(TestSamples.spec());
        for (int i = 0; i < 5; i++) {
            assertThat(source.find(TestSamples.DATASET, TestSamples.VERSION)).contains(TestSamples.spec());
        }
        assertThat(reads).hasValue(1);
    }

    @Test
    void shouldRememberAMissForTheTtlThenAskAgain() {
        assertThat(source.find(TestSamples.DATASET, TestSamples.VERSION)).isEmpty();
        new DatasetCatalog(backing).create(TestSamples.spec());
        clock.advance(Duration.ofSeconds(9));
        assertThat(source.find(TestSamples.DATASET, TestSamples.VERSION)).as("still within the miss TTL").isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(source.find(TestSamples.DATASET, TestSamples.VERSION)).contains(TestSamples.spec());
    }

    private static final class MutableClock extends Clock {
        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
