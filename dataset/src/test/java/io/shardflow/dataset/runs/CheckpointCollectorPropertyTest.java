package io.shardflow.dataset.runs;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.ManualClock;
import io.shardflow.dataset.store.InMemoryObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Random histories of a run (saves on one or two ranks, saves killed before their manifest, second
 * attempts at saved steps, pins, time passing) and a gc with a random retention: nothing a kept
 * step's manifest names is deleted, and the kept steps still verify; the newest step, the pinned
 * ones and the policy's are exactly the kept ones; a dropped step is gone whole; garbage older than
 * the safety window is gone, younger garbage stays.
 */
class CheckpointCollectorPropertyTest {

    private static final Duration WINDOW = Duration.ofHours(1);

    interface Op {
    }

    record Save(int step, int ranks) implements Op {
    }

    record Killed(int step) implements Op {
    }

    record Pin(int step) implements Op {
    }

    record Wait(int minutes) implements Op {
    }

    @Provide
    Arbitrary<List<Op>> histories() {
        Arbitrary<Integer> steps = Arbitraries.integers().between(0, 40);
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                Tuple.of(5, Arbitraries.integers().between(1, 2).flatMap(r -> steps.map(s -> (Op) new Save(s, r)))),
                Tuple.of(2, steps.map(s -> (Op) new Killed(s))),
                Tuple.of(1, steps.map(s -> (Op) new Pin(s))),
                Tuple.of(2, Arbitraries.integers().between(1, 90).map(m -> (Op) new Wait(m))));
        return op.list().ofMinSize(1).ofMaxSize(25);
    }

    @Property(tries = 60)
    void shouldDeleteNothingAKeptCheckpointNeeds(@ForAll("histories") List<Op> history,
                                                 @ForAll @IntRange(min = 1, max = 4) int keepLast,
                                                 @ForAll @IntRange(min = 0, max = 15) int keepEvery) {
        ManualClock clock = new ManualClock(Instant.parse("2026-05-01T00:00:00Z"));
        InMemoryObjectStore store = new InMemoryObjectStore();
        store.useClock(clock);
        SavedRuns runs = new SavedRuns(store);
        TrainingCheckpoints checkpoints = new TrainingCheckpoints(store);
        Set<Long> saved = new TreeSet<>();
        Set<Long> pinned = new HashSet<>();
        Map<String, Instant> garbage = new HashMap<>();
        int attempts = 0;
        for (Op op : history) {
            if (op instanceof Save save) {
                String attempt = SavedRuns.attempt(++attempts);
                if (saved.add((long) save.step())) {
                    Map<Integer, List<String>> files = save.ranks() == 1 ? Map.of(0, List.of("model", "optim"))
                            : Map.of(0, List.of("model"), 1, List.of("rng"));
                    runs.save("r", save.step(), attempt, files, List.of());
                } else {  // a second attempt at a saved step: its manifest is refused, its files are garbage
                    runs.partial("r", save.step(), attempt, List.of("model")).forEach(k -> garbage.put(k, clock.instant()));
                }
            } else if (op instanceof Killed killed) {
                runs.partial("r", killed.step(), SavedRuns.attempt(++attempts), List.of("model", "optim"))
                        .forEach(k -> garbage.put(k, clock.instant()));
            } else if (op instanceof Pin pin && saved.contains((long) pin.step())) {
                checkpoints.pin("r", pin.step(), "", "t", clock.instant());
                pinned.add((long) pin.step());
            } else if (op instanceof Wait wait) {
                clock.advance(Duration.ofMinutes(wait.minutes()));
            }
        }
        Map<Long, CheckpointManifest> before = new HashMap<>();
        checkpoints.saved("r").forEach(m -> before.put(m.step(), m));
        CheckpointRetention retention = new CheckpointRetention(keepLast,
                keepEvery == 0 ? OptionalLong.empty() : OptionalLong.of(keepEvery));

        CheckpointCollector.Result result = new CheckpointCollector(checkpoints, clock)
                .collect("r", retention, WINDOW, false, line -> { });

        Set<Long> expected = retention.kept(saved, pinned);
        if (!saved.isEmpty()) {
            assertThat(expected).contains(saved.stream().max(Long::compare).orElseThrow());
        }
        assertThat(new TreeSet<>(result.kept())).isEqualTo(expected);
        assertThat(checkpoints.saved("r")).extracting(CheckpointManifest::step).containsExactlyElementsOf(expected);
        Set<String> left = new HashSet<>(store.keys());
        for (long step : expected) {
            CheckpointManifest manifest = before.get(step);
            assertThat(left).contains(RunLayout.manifestKey("r", step));
            manifest.files().forEach(f -> assertThat(left).as("named by kept step %d", step).contains(f.key()));
            assertThat(checkpoints.verify(manifest)).isEmpty();
        }
        for (long step : saved) {
            if (!expected.contains(step)) {
                assertThat(left).noneMatch(k -> k.startsWith(RunLayout.stepPrefix("r", step)));
                assertThat(left).doesNotContain(RunLayout.pointerKey("r", step));
            }
        }
        Instant cutoff = clock.instant().minus(WINDOW);
        garbage.forEach((key, written) -> {
            boolean dropped = result.dropped().stream().anyMatch(s -> key.startsWith(RunLayout.stepPrefix("r", s)));
            if (written.isBefore(cutoff) || dropped) {
                assertThat(left).as("garbage older than the window").doesNotContain(key);
            } else {
                assertThat(left).as("garbage inside the window").contains(key);
            }
        });
        Set<String> keptFiles = new HashSet<>();
        expected.forEach(s -> before.get(s).files().forEach(f -> keptFiles.add(f.key())));
        assertThat(result.deleted()).noneMatch(keptFiles::contains);
        for (StoredObject object : store.listObjects("runs/r/latest/", null, 1000)) {
            assertThat(saved).contains(RunLayout.stepOfPointer("r", object.key()).orElseThrow());
        }
    }
}
