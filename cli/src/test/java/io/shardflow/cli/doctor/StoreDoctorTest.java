package io.shardflow.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The create-only probe's verdicts; a real S3Proxy and MinIO answer it in LocalStackCommandsTest and by hand. */
class StoreDoctorTest {

    private final StoreDoctor doctor = new StoreDoctor(Clock.fixed(Instant.ofEpochMilli(1234), ZoneOffset.UTC), Duration.ofSeconds(1));
    private final InMemoryObjectStore store = new InMemoryObjectStore();

    /** A server that ignores If-None-Match: every PUT creates or overwrites. */
    static final class IgnoresConditions extends ForwardingObjectStore {
        private final Map<String, byte[]> objects = new HashMap<>();

        IgnoresConditions() {
            super(new InMemoryObjectStore());
        }

        @Override
        public PutOutcome putIfAbsent(String key, byte[] bytes) {
            objects.put(key, bytes);
            return PutOutcome.CREATED;
        }

        @Override
        public Optional<byte[]> get(String key) {
            return Optional.ofNullable(objects.get(key));
        }
    }

    @Test
    void shouldPassAStoreThatRefusesTheSecondWriteAndSayWhenTheProbeCannotBeDeleted() {
        List<Finding> findings = doctor.createOnly(store, key -> {
            throw new IllegalStateException("AccessDenied");
        });

        assertThat(findings).extracting(Finding::status).containsExactly(Finding.Status.OK, Finding.Status.OK);
        assertThat(findings.get(1).detail()).isEqualTo("left the probe key doctor/create-only-probe-1234 (this key may not "
                + "delete: AccessDenied)");
        assertThat(store.get("doctor/create-only-probe-1234")).get().isEqualTo("first".getBytes());
    }

    @Test
    void shouldFailAStoreThatOverwritesDespiteIfNoneMatch() {
        List<String> removed = new java.util.ArrayList<>();
        List<Finding> findings = doctor.createOnly(new IgnoresConditions(), removed::add);

        assertThat(findings.get(0).status()).isEqualTo(Finding.Status.FAIL);
        assertThat(findings.get(0).detail()).contains("overwrote the object", "a zombie sink could overwrite a committed shard");
        assertThat(findings.get(0).fix()).contains("honours conditional writes");
        assertThat(removed).containsExactly("doctor/create-only-probe-1234");
    }
}
