package io.shardflow.ingest.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LaneStateSerdeTest {

    @Test
    void shouldRoundTripLaneState() {
        LaneState state = new LaneState(41L, 17, 9_999L, 1_700_000_000_000L, "f00d");
        assertThat(LaneStateSerde.decode(LaneStateSerde.encode(state))).isEqualTo(state);
    }

    @Test
    void shouldOpenAtFirstSampleAndAdvanceSequenceOnSeal() {
        LaneState lane = LaneState.fresh().add(10, 500, "fp").add(5, 900, "fp");
        assertThat(lane.openedAtMillis()).isEqualTo(500);
        assertThat(lane.progress().payloadBytes()).isEqualTo(15);
        LaneState sealed = lane.sealed();
        assertThat(sealed.sequence()).isEqualTo(1);
        assertThat(sealed.hasOpenShard()).isFalse();
    }

    @Test
    void shouldRefuseUnknownFormat() {
        byte[] bytes = LaneStateSerde.encode(LaneState.fresh());
        bytes[0] = 7;
        assertThatThrownBy(() -> LaneStateSerde.decode(bytes)).hasMessageContaining("unknown format 7");
    }
}
