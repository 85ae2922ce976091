package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.console.dlq.DlqHeaders;
import io.shardflow.ingest.topology.DeadLetters;
import org.junit.jupiter.api.Test;

/** The console reads the headers ingest-app writes: the names must be the same (they are a public contract). */
class DlqHeadersTest {

    @Test
    void shouldReadTheHeaderNamesIngestAppWrites() {
        assertThat(DlqHeaders.REASON).isEqualTo(DeadLetters.REASON_HEADER);
        assertThat(DlqHeaders.DETAIL).isEqualTo(DeadLetters.DETAIL_HEADER);
        assertThat(DlqHeaders.SOURCE).isEqualTo(DeadLetters.SOURCE_HEADER);
        assertThat(DlqHeaders.DROPPED).isEqualTo(DeadLetters.DROPPED_HEADER);
    }
}
