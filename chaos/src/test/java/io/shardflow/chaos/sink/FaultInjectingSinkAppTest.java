package io.shardflow.chaos.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class FaultInjectingSinkAppTest {

    @Test
    void shouldLeaveFaultInjectionOffWithoutArguments() {
        assertThat(FaultInjectingSinkApp.crashPoints(List.of()).armed()).isFalse();
        assertThat(FaultInjectingSinkApp.crashPoints(FaultInjectingSinkApp.arguments("", "")).armed()).isFalse();
    }

    @Test
    void shouldRefuseAMalformedCrashPointArgumentNamingIt() {
        assertThatThrownBy(() -> FaultInjectingSinkApp.arguments("after-upload:0.1,somewhere:1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--crash-points=")
                .hasMessageContaining("somewhere");
    }

    @Test
    void shouldRefuseAnUnknownArgument() {
        assertThatThrownBy(() -> FaultInjectingSinkApp.crashPoints(List.of("--crash=after-upload:1")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--crash=after-upload:1");
    }

    @Test
    void shouldReadTheCrashPointsWhenSet() {
        CrashPoints points = FaultInjectingSinkApp.crashPoints(FaultInjectingSinkApp.arguments("after-upload:0.5", ""));

        assertThat(points.listed(CrashPoint.AFTER_UPLOAD)).isTrue();
        assertThat(points.listed(CrashPoint.AFTER_COMMIT)).isFalse();
    }

    @Test
    void shouldReadTheFreezePointsWhenSet() {
        CrashPoints points = FaultInjectingSinkApp.crashPoints(FaultInjectingSinkApp.arguments("", "after-commit:1"));

        assertThat(points.listed(CrashPoint.AFTER_COMMIT)).isTrue();
    }
}
