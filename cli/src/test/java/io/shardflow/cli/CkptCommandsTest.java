package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.cli.DatasetCommandRunner.Run;
import io.shardflow.dataset.runs.RunLayout;
import io.shardflow.dataset.runs.SavedRuns;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ckpt list | show | verify | pin | gc} and lineage-aware {@code dataset expire}, in-process on an in-memory store. */
class CkptCommandsTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final SavedRuns runs = new SavedRuns(store);
    private List<String> step300Files;

    @BeforeEach
    void saveARun() throws Exception {
        store.useClock(Clock.offset(DatasetCommandRunner.CLOCK, Duration.ofDays(-2)));
        DatasetCommandRunner.publishThreeSnapshots(store, tmp);
        runs.save("r7", 100, SavedRuns.attempt(1), Map.of(0, List.of("model", "optim")),
                List.of(new SavedRuns.Pin("cams", "v1", 1)));
        runs.save("r7", 200, SavedRuns.attempt(2), Map.of(0, List.of("model")), List.of(new SavedRuns.Pin("cams", "v1", 2)));
        step300Files = runs.save("r7", 300, SavedRuns.attempt(3), Map.of(0, List.of("model", "optim"), 1, List.of("rng")),
                List.of(new SavedRuns.Pin("cams", "v1", 3)));
        runs.partial("r7", 400, SavedRuns.attempt(4), List.of("model"));  // killed before its manifest
        store.useClock(DatasetCommandRunner.CLOCK);
    }

    @Test
    void shouldListShowAndVerifySavedStepsOnly() throws Exception {
        Run list = ckpt("list", "--json");
        Run steps = ckpt("list", "r7", "--json");
        Run show = ckpt("show", "r7");
        Run showJson = ckpt("show", "r7", "100", "--json");
        Run verify = ckpt("verify", "r7", "--all", "--json");

        assertThat(list.json().get("runs")).singleElement().satisfies(r -> {
            assertThat(r.get("savedSteps").asInt()).isEqualTo(3);
            assertThat(r.get("latest").get("step").asLong()).isEqualTo(300);
        });
        assertThat(steps.json().get("steps")).extracting(s -> s.get("step").asLong()).containsExactly(100L, 200L, 300L);
        assertThat(steps.json().get("steps").get(2).get("datasets").get(0).asText()).isEqualTo("cams/v1@3");
        assertThat(show.out()).contains("run r7 step 300", "rank 1", "rng", "cams/v1@3");
        assertThat(showJson.json().get("attempt").asText()).isEqualTo(SavedRuns.attempt(1));
        assertThat(showJson.json().get("pinned").asBoolean()).isFalse();
        assertThat(verify.exitCode()).as(verify.out()).isZero();
        assertThat(verify.json().get("steps")).hasSize(3);

        store.delete(step300Files.get(0));
        Run broken = ckpt("verify", "r7");
        assertThat(broken.exitCode()).isEqualTo(1);
        assertThat(broken.out()).contains("step 300: 1 problems", "missing");
        assertThat(ckpt("show", "r7", "400").err()).contains("run 'r7' has no saved step 400");
    }

    @Test
    void shouldKeepWhatRetentionAndPinsKeepAndRefuseToExpireWhatCheckpointsNeed() throws Exception {
        assertThat(ckpt("pin", "r7", "100", "--note", "best eval").out()).contains("pinned");
        assertThat(ckpt("list", "r7").out()).contains("pinned");

        Run refused = DatasetCommandRunner.run(store, "expire", "cams", "v1", "--through", "2");
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("would drop snapshot 1, which training checkpoints need: run r7 step 100");
        Run dryGc = ckpt("gc", "r7", "--keep-last", "1", "--dry-run", "--json");
        assertThat(dryGc.json().get("runs").get(0).get("dropped")).extracting(JsonNode::asLong).containsExactly(200L);
        assertThat(store.head(RunLayout.manifestKey("r7", 200))).isPresent();

        Run gc = ckpt("gc", "r7", "--keep-last", "1", "--json");
        JsonNode result = gc.json().get("runs").get(0);
        assertThat(result.get("kept")).extracting(JsonNode::asLong).containsExactly(100L, 300L);
        assertThat(result.get("deletedObjects")).extracting(JsonNode::asText)
                .contains(RunLayout.manifestKey("r7", 200), RunLayout.fileKey("r7", 400, SavedRuns.attempt(4), 0, "model"));
        assertThat(ckpt("verify", "r7", "--all").exitCode()).isZero();

        Run policy = DatasetCommandRunner.run(store, "expire", "cams", "v1", "--keep-last", "1", "--json");
        assertThat(policy.exitCode()).as(policy.err()).isZero();
        assertThat(policy.json().get("expiredSnapshots").asText()).isEqualTo("2");
        assertThat(policy.json().get("keptForTrainingCheckpoints").get("1")).extracting(JsonNode::asText)
                .containsExactly("run r7 step 100");
        Run forced = DatasetCommandRunner.run(store, "expire", "cams", "v1", "--through", "1", "--force");
        assertThat(forced.exitCode()).as(forced.err()).isZero();
        Run stale = ckpt("verify", "r7", "100");
        assertThat(stale.exitCode()).isEqualTo(1);
        assertThat(stale.out()).contains("snapshot 1 of cams/v1 has expired");
        assertThat(ckpt("pin", "r7", "100", "--unpin").out()).contains("unpinned");
    }

    private Run ckpt(String... args) {
        return DatasetCommandRunner.ckpt(store, args);
    }
}
