package io.shardflow.ingest.lane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LaneStateSerdeTest {

    @Test
    void shouldRoundTripLaneState() {
        LaneState state = new LaneState(41L, 17, 9_999L, 12_345L, 1_700_000_000_000L, "f00d");
        assertThat(LaneStateSerde.decode(LaneStateSerde.encode(state))).isEqualTo(state);
    }

    @Test
    void shouldReadAVersionOneStateWithItsPayloadAsTheBudget() throws Exception {
        var buffer = new java.io.ByteArrayOutputStream();
        try (var out = new java.io.DataOutputStream(buffer)) {
            out.writeByte(1);
            out.writeLong(41L);
            out.writeInt(17);
            out.writeLong(9_999L);
            out.writeLong(1_700_000_000_000L);
            out.writeUTF("f00d");
        }
        assertThat(LaneStateSerde.decode(buffer.toByteArray()))
                .isEqualTo(new LaneState(41L, 17, 9_999L, 9_999L, 1_700_000_000_000L, "f00d"));
    }

    @Test
    void shouldOpenAtFirstSampleAndAdvanceSequenceOnSeal() {
        LaneState lane = LaneState.fresh().add(10, 12, 500, "fp").add(5, 9, 900, "fp");
        assertThat(lane.openedAtMillis()).isEqualTo(500);
        assertThat(lane.payloadBytes()).isEqualTo(15);
        assertThat(lane.progress().budgetBytes()).as("attributes count toward the budget").isEqualTo(21);
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
