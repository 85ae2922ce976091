package io.shardflow.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StageWindowTest {

    @Test
    void shouldRefuseToTimeAWindowThatHeldNoRecordsOrLastedLessThanACommitStep() {
        assertThat(new StageWindow.Result(0, 0.6, null, null).tooShortToTime()).isTrue();
        assertThat(new StageWindow.Result(8_000, 0.4, null, null).tooShortToTime()).isTrue();
        assertThat(new StageWindow.Result(8_680, 2.1, null, null).tooShortToTime()).isFalse();
    }
}
