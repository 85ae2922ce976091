package io.shardflow.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardflow.dataset.runs.SavedRuns;
import io.shardflow.dataset.runs.TrainingCheckpoints;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The runs pages over HTTP: runs, their saved steps (never an unfinished save), and the snapshot each step used. */
class RunsViewTest {

    @TempDir
    Path cache;
    private ConsoleServer console;

    @AfterEach
    void stop() {
        if (console != null) {
            console.close();
        }
    }

    @Test
    void shouldShowRunsTheirSavedStepsAndTheSnapshotEachWasTrainedOn() throws Exception {
        InMemoryObjectStore store = new InMemoryObjectStore();
        SavedRuns runs = new SavedRuns(store);
        runs.save("r7", 100, SavedRuns.attempt(1), Map.of(0, List.of("model")), List.of(new SavedRuns.Pin("cams", "v1", 2)));
        runs.save("r7", 200, SavedRuns.attempt(2), Map.of(0, List.of("model"), 1, List.of("rng")),
                List.of(new SavedRuns.Pin("cams", "v1", 3)));
        runs.partial("r7", 300, SavedRuns.attempt(3), List.of("model"));
        new TrainingCheckpoints(store).pin("r7", 100, "best", "t", Instant.parse("2026-05-01T10:00:00Z"));
        console = ConsoleServer.start(new ConsoleSettings("127.0.0.1", 0, Optional.empty(), cache, 16L << 20,
                Optional.empty(), "", Map.of()), store, null, Clock.systemUTC());
        ConsoleHttp http = new ConsoleHttp(console.port());

        String index = http.page("/runs");
        String run = http.page("/runs/r7");

        assertThat(index).contains("<a href=\"/runs\">Runs</a>", "href=\"/runs/r7\"", ">200<");
        assertThat(run).contains("href=\"/datasets/cams/v1/snapshots/3\"", "cams/v1 snapshot 2", ">pinned<")
                .doesNotContain(">300<");
        assertThat(run.indexOf(">200<")).isLessThan(run.indexOf(">100<")).as("newest first");
        assertThat(http.get("/runs/nosuch").statusCode()).isEqualTo(404);
        assertThat(http.get("/runs/..%2Fx").statusCode()).isIn(400, 404);
    }
}
