package io.shardflow.app.spec;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.catalog.DatasetCatalog;
import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.spec.DType;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.spec.TensorSpec;
import java.util.List;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CatalogSpecSourceTest {

    private static final DatasetSpec SPEC = new DatasetSpec("cams", "v1",
            List.of(new TensorSpec("image", DType.FLOAT32, List.of(2, 2)), new TensorSpec("label", DType.INT64, List.of())),
            "label", "tests", "test dataset", 0L, false, Instant.EPOCH);

    private final InMemoryObjectStore backing = new InMemoryObjectStore();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger lists = new AtomicInteger();
    private final ForwardingObjectStore counting = new ForwardingObjectStore(backing) {
        @Override
        public Optional<byte[]> get(String key) {
            reads.incrementAndGet();
            return super.get(key);
        }

        @Override
        public java.util.List<String> listPrefixes(String prefix) {
            lists.incrementAndGet();
            return super.listPrefixes(prefix);
        }
    };
    private final MutableClock clock = new MutableClock();
    private final CatalogSpecSource source = new CatalogSpecSource(new DatasetCatalog(counting), clock, Duration.ofSeconds(10), 100);

    @Test
    void shouldReadAKnownSpecOnceAndKeepIt() {
        new DatasetCatalog(backing).create(SPEC);
        for (int i = 0; i < 5; i++) {
            assertThat(source.find("cams", "v1")).contains(SPEC);
        }
        assertThat(reads).hasValue(1);
    }

    @Test
    void shouldRememberAMissForTheTtlThenAskAgain() {
        assertThat(source.find("cams", "v1")).isEmpty();
        new DatasetCatalog(backing).create(SPEC);
        clock.advance(Duration.ofSeconds(9));
        assertThat(source.find("cams", "v1")).as("still within the miss TTL").isEmpty();
        clock.advance(Duration.ofSeconds(1));
        assertThat(source.find("cams", "v1")).contains(SPEC);
    }

    @Test
    void shouldAskWhetherAnUnknownDatasetExistsOncePerTtlNotOncePerRecord() {
        for (int i = 0; i < 1_000; i++) {
            assertThat(source.find("flood", "v1")).isEmpty();
            assertThat(source.datasetExists("flood")).isFalse();
        }
        assertThat(reads).hasValue(1);
        assertThat(lists).hasValue(1);
        clock.advance(Duration.ofSeconds(10));
        assertThat(source.datasetExists("flood")).isFalse();
        assertThat(lists).as("asked again once the TTL is over").hasValue(2);
    }

    @Test
    void shouldForgetUnknownNamesBeyondItsSizeBound() {
        for (int i = 0; i < 5_000; i++) {
            assertThat(source.find("flood-" + i, "v1")).isEmpty();
        }
        assertThat(source.rememberedMisses()).isLessThanOrEqualTo(100);
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
