package io.shardflow.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.layout.ShardId;
import io.shardflow.dataset.store.ObjectStoreException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReplayCheckTest {

    private final ShardId shard = ShardEvents.shard(0, 7);
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicBoolean outage = new AtomicBoolean();
    private final AtomicBoolean storeFails = new AtomicBoolean();
    private final AtomicInteger asked = new AtomicInteger();
    private final ReplayCheck check = new ReplayCheck(s -> {
        asked.incrementAndGet();
        if (storeFails.get()) {
            throw new ObjectStoreException("get", "log", "connection refused", null);
        }
        return s.equals(shard);
    }, outage::get, nanos::get);

    @Test
    void shouldAskTheCommitLog() {
        assertThat(check.knownCommitted(shard)).isTrue();
        assertThat(check.knownCommitted(ShardEvents.shard(0, 8))).isFalse();
        assertThat(asked).hasValue(2);
    }

    @Test
    void shouldAnswerNoWithoutAskingDuringAnOutage() {
        outage.set(true);

        assertThat(check.knownCommitted(shard)).isFalse();
        assertThat(asked).hasValue(0);
    }

    @Test
    void shouldStayQuietForTheQuietPeriodAfterAFailedCheck() {
        storeFails.set(true);
        assertThat(check.knownCommitted(shard)).as("a failed check is a safe no").isFalse();
        storeFails.set(false);

        nanos.addAndGet(ReplayCheck.QUIET_PERIOD.toNanos() - 1);
        assertThat(check.knownCommitted(shard)).isFalse();
        assertThat(asked).as("not asked again within the quiet period").hasValue(1);

        nanos.addAndGet(1);
        assertThat(check.knownCommitted(shard)).isTrue();
        assertThat(asked).hasValue(2);
    }
}
