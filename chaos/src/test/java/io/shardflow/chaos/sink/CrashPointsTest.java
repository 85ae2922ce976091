package io.shardflow.chaos.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.sink.SinkHook;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CrashPointsTest {

    private final List<String> fired = new ArrayList<>();
    private final CrashPoints.Injector recording = new CrashPoints.Injector() {
        @Override
        public void halt(CrashPoint point) {
            fired.add("halt " + point.id());
        }

        @Override
        public void freeze(CrashPoint point) {
            fired.add("freeze " + point.id());
        }
    };

    @Test
    void shouldBeOffWhenNothingIsListed() {
        CrashPoints points = CrashPoints.of("", " ");

        assertThat(points).isSameAs(CrashPoints.NONE);
        assertThat(points.armed()).isFalse();
        for (CrashPoint point : CrashPoint.values()) {
            assertThat(points.listed(point)).isFalse();
            assertThat(points.draw(point)).isFalse();
        }
    }

    @Test
    void shouldParseTheSettingFormat() {
        assertThat(CrashPoints.parse("after-upload:0.02, after-commit:1,mid-spool:0"))
                .containsExactlyInAnyOrderEntriesOf(Map.of(CrashPoint.AFTER_UPLOAD, 0.02, CrashPoint.AFTER_COMMIT, 1.0,
                        CrashPoint.MID_SPOOL, 0.0));
    }

    @Test
    void shouldRefuseUnknownPointsAndBadProbabilitiesNamingThem() {
        assertThatThrownBy(() -> CrashPoints.parse("after-lunch:0.1")).hasMessageContaining("after-lunch")
                .hasMessageContaining("after-upload");
        assertThatThrownBy(() -> CrashPoints.parse("after-upload:2")).hasMessageContaining("[0, 1]");
        assertThatThrownBy(() -> CrashPoints.parse("after-upload:lots")).hasMessageContaining("not a number");
        assertThatThrownBy(() -> CrashPoints.parse("after-upload")).hasMessageContaining("point:probability");
    }

    @Test
    void shouldFireAListedPointWithItsProbabilityAndNoOtherPoint() {
        CrashPoints points = CrashPoints.of("after-upload:1,after-commit:0.5", "before-upload:1", new SplittableRandom(1),
                recording);

        points.reach(CrashPoint.MID_SPOOL);
        points.reach(CrashPoint.AFTER_UPLOAD);
        points.reach(CrashPoint.BEFORE_UPLOAD);
        assertThat(fired).containsExactly("halt after-upload", "freeze before-upload");

        fired.clear();
        for (int i = 0; i < 1000; i++) {
            points.reach(CrashPoint.AFTER_COMMIT);
        }
        assertThat(fired).hasSizeBetween(400, 600).containsOnly("halt after-commit");
    }

    @Test
    void shouldFireAtThePointJustAfterEachStepTheSinkReportsThroughItsHook() {
        SinkHook hook = CrashPoints.of("mid-spool:1,before-upload:1,after-upload:1,after-commit:1", "", new SplittableRandom(1),
                recording);

        for (SinkHook.Step step : SinkHook.Step.values()) {
            hook.passed(step);
        }

        assertThat(fired).containsExactly("halt mid-spool", "halt before-upload", "halt after-upload", "halt after-commit");
    }

    @Test
    void shouldWrapTheUploadStoreOnlyWhenMidUploadCrashesAreListed() {
        InMemoryObjectStore store = new InMemoryObjectStore();

        assertThat(CrashPoints.of("after-upload:1", "").uploadStore(store)).isSameAs(store);
        assertThat(CrashPoints.of("mid-upload:0.5", "").uploadStore(store)).isInstanceOf(MidUploadCrashes.class);
    }
}
