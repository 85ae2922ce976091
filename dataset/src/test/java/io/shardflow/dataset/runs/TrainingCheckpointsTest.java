package io.shardflow.dataset.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Keys, the manifest the Python trainer API writes (docs/training-checkpoint-manifest.json), listing, pins, verify. */
class TrainingCheckpointsTest {

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final TrainingCheckpoints checkpoints = new TrainingCheckpoints(store);
    private final SavedRuns runs = new SavedRuns(store);

    @Test
    void shouldNameKeysAsThePythonPackageDoes() {
        assertThat(RunLayout.manifestKey("r", 42)).isEqualTo("runs/r/step-00000000000000000042/MANIFEST.json");
        assertThat(RunLayout.pointerKey("r", 10)).isLessThan(RunLayout.pointerKey("r", 9));
        assertThat(RunLayout.stepOfPointer("r", RunLayout.pointerKey("r", 12345))).hasValue(12345);
        assertThat(RunLayout.fileKey("r", 7, SavedRuns.attempt(1), 3, "model"))
                .isEqualTo("runs/r/step-00000000000000000007/0000000000000001/rank-00003/model");
        assertThatThrownBy(() -> RunLayout.runPrefix("../x")).hasMessageContaining("run name");
    }

    @Test
    void shouldReadTheManifestThePythonPackageWrites() throws Exception {
        byte[] bytes = Files.readAllBytes(Path.of("..", "docs", "training-checkpoint-manifest.json"));
        CheckpointManifest manifest = CheckpointManifestCodec.decode(bytes, "r7", 400);
        assertThat(manifest.worldSize()).isEqualTo(2);
        assertThat(manifest.savedAt()).isEqualTo(Instant.parse("2026-05-01T10:00:00Z"));
        assertThat(manifest.files()).extracting(CheckpointManifest.SavedFile::name)
                .containsExactly("model", "optim", "rng", "rng");
        assertThat(manifest.datasets()).singleElement().satisfies(d -> {
            assertThat(d.dataset()).isEqualTo("cams");
            assertThat(d.snapshots()).containsExactly(4L);
        });
        assertThat(manifest.readerState().get("consumed").asLong()).isEqualTo(1536);
        assertThat(manifest.frameworks()).containsEntry("torch", "1.13.0");
        assertThatThrownBy(() -> CheckpointManifestCodec.decode(bytes, "r7", 401))
                .hasMessageContaining("stored as run 'r7' step 401");
        String moved = new String(bytes, StandardCharsets.UTF_8).replace("rank-00001/rng", "rank-00001/../../x");
        assertThatThrownBy(() -> CheckpointManifestCodec.decode(moved.getBytes(StandardCharsets.UTF_8), "r7", 400))
                .hasMessageContaining("is stored at");
        String newer = new String(bytes, StandardCharsets.UTF_8).replace("checkpoint/1", "checkpoint/2");
        assertThatThrownBy(() -> CheckpointManifestCodec.decode(newer.getBytes(StandardCharsets.UTF_8), "r7", 400))
                .hasMessageContaining("newer shardflow");
    }

    @Test
    void shouldListOnlyStepsWithAManifestAndVerifyTheirFiles() {
        runs.save("r", 10, SavedRuns.attempt(1), Map.of(0, List.of("model", "rng")), List.of());
        List<String> files = runs.save("r", 20, SavedRuns.attempt(2), Map.of(0, List.of("model"), 1, List.of("rng")),
                List.of());
        runs.partial("r", 30, SavedRuns.attempt(3), List.of("model"));
        runs.save("other", 5, SavedRuns.attempt(4), Map.of(0, List.of("model")), List.of());

        assertThat(checkpoints.runs()).containsExactly("other", "r");
        assertThat(checkpoints.stepFolders("r")).containsExactly(10L, 20L, 30L);
        assertThat(checkpoints.saved("r")).extracting(CheckpointManifest::step).containsExactly(10L, 20L);
        assertThat(checkpoints.latest("r")).hasValueSatisfying(m -> assertThat(m.step()).isEqualTo(20));
        assertThat(checkpoints.newestPointer("r")).hasValue(20);
        assertThat(checkpoints.verify(checkpoints.manifest("r", 20).orElseThrow())).isEmpty();

        store.delete(files.get(0));
        store.putIfAbsent(files.get(0), "x".repeat((files.get(0) + " content").length()).getBytes(StandardCharsets.UTF_8));
        store.delete(files.get(1));
        assertThat(checkpoints.verify(checkpoints.manifest("r", 20).orElseThrow()))
                .anySatisfy(p -> assertThat(p).contains("has sha256"))
                .anySatisfy(p -> assertThat(p).contains("missing"));
    }

    @Test
    void shouldKeepTheStepsThePythonRetentionKeeps() {
        // the cases of python/tests/test_training_checkpoint_retention.py
        List<Long> steps = List.of(0L, 300L, 600L, 900L, 1200L, 1500L, 1800L, 2100L);
        assertThat(new CheckpointRetention(2, java.util.OptionalLong.empty()).kept(steps, List.of()))
                .containsExactly(1800L, 2100L);
        assertThat(new CheckpointRetention(1, java.util.OptionalLong.of(1000)).kept(steps, List.of()))
                .containsExactly(0L, 1200L, 2100L);
        assertThat(new CheckpointRetention(1, java.util.OptionalLong.empty()).kept(steps, List.of(600L, 7L)))
                .containsExactly(600L, 2100L);
        assertThatThrownBy(() -> new CheckpointRetention(0, java.util.OptionalLong.empty()))
                .hasMessageContaining("--keep-last must be >= 1");
    }

    @Test
    void shouldPinOnlySavedStepsOnce() {
        runs.save("r", 10, SavedRuns.attempt(1), Map.of(0, List.of("model")), List.of());
        Instant at = Instant.parse("2026-05-01T10:00:00Z");
        assertThat(checkpoints.pin("r", 10, "best eval", "ana", at)).isTrue();
        assertThat(checkpoints.pin("r", 10, "again", "ana", at)).isFalse();
        assertThat(checkpoints.pins("r")).containsEntry(10L, "best eval");
        assertThatThrownBy(() -> checkpoints.pin("r", 11, "", "ana", at)).hasMessageContaining("no saved step 11");
        assertThat(checkpoints.unpin("r", 10)).isTrue();
        assertThat(checkpoints.pins("r")).isEmpty();
    }
}
