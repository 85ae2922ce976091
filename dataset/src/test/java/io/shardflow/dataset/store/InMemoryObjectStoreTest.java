package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class InMemoryObjectStoreTest extends ObjectStoreContract {

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Test
    void shouldThrowInjectedFailuresUntilHealed() {
        store.failWhen((operation, key) -> operation.equals("putIfAbsent"));

        assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1]))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("putIfAbsent of 'k'");

        store.heal();
        assertThat(store.putIfAbsent("k", new byte[1])).isEqualTo(PutOutcome.CREATED);
    }

    @Test
    void shouldNotShareArraysWithCallers() {
        byte[] body = {1, 2, 3};
        store.putIfAbsent("k", body);
        body[0] = 9;

        assertThat(store.get("k")).hasValueSatisfying(b -> assertThat(b).containsExactly(1, 2, 3));
    }
}
