package io.shardflow.cli;

import static io.shardflow.cli.DatasetCommandRunner.CLOCK;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.shardflow.cli.DatasetCommandRunner.Run;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.store.InMemoryObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code dataset tag | compact | delete | expire} run in-process on an in-memory store. */
class DatasetLifecycleCommandsTest {

    @TempDir
    Path tmp;

    private final InMemoryObjectStore store = new InMemoryObjectStore();

    @BeforeEach
    void publishThreeSnapshots() throws Exception {
        DatasetCommandRunner.publishThreeSnapshots(store, tmp);
    }

    @Test
    void shouldCompactTagDeleteAndExpireWithClearRefusals() throws Exception {
        store.useClock(Clock.offset(CLOCK, java.time.Duration.ofDays(-2)));
        Run tag = run("tag", "cams", "v1", "before-compaction", "--snapshot", "2", "--json");
        Run compact = run("compact", "cams", "v1", "--target-samples", "10", "--json");
        Run again = run("compact", "cams", "v1", "--target-samples", "10");
        Run twice = run("tag", "cams", "v1", "before-compaction");
        Run delete = run("delete", "cams", "v1", "--device-id", "dev-1", "--reason", "faulty sensor", "--json");
        Run nothing = run("delete", "cams", "v1", "--sample-id", "no-such-sample", "--reason", "erasure");
        Run tagged = run("expire", "cams", "v1", "--through", "3");
        Run expire = run("expire", "cams", "v1", "--keep-last", "1", "--safety-window", "PT1H", "--json");

        assertThat(tag.exitCode()).isZero();
        assertThat(tag.json().get("snapshotId").asLong()).isEqualTo(2);
        assertThat(compact.exitCode()).as(compact.err()).isZero();
        assertThat(compact.json().get("removedShards").size()).isGreaterThan(1);
        assertThat(compact.err()).contains("compact: merged group 1 of");
        assertThat(again.out()).contains("nothing to compact");
        assertThat(twice.exitCode()).isEqualTo(1);
        assertThat(twice.err()).contains("tag 'before-compaction' already names snapshot 2");
        assertThat(delete.exitCode()).as(delete.err()).isZero();
        assertThat(delete.json().get("deletedSamples").asLong()).isEqualTo(5 + 2 + 4);
        assertThat(nothing.exitCode()).isEqualTo(1);
        assertThat(nothing.err()).contains("nothing deleted");
        assertThat(tagged.exitCode()).isEqualTo(1);
        assertThat(tagged.err()).contains("would drop snapshot 2, which tag 'before-compaction' names");
        assertThat(expire.exitCode()).as(expire.err()).isZero();
        assertThat(expire.json().get("deletedObjects").size()).isPositive();
        Run verify = run("verify", "cams", "v1", "--json");
        assertThat(verify.exitCode()).as(verify.out()).isZero();
        assertThat(verify.json().get("samples").asLong()).isEqualTo(46 - 11);
        Run snapshots = run("snapshots", "cams", "v1", "--json");
        assertThat(snapshots.json().get("snapshots").findValuesAsText("kind"))
                .contains("append", "tag", "replace", "delete", "expire");
        assertThat(run("verify", "cams", "v1", "--snapshot", "2").exitCode()).isZero();
        assertThat(run("show", "cams", "v1", "--snapshot", "3").err()).contains("has expired");
    }

    @Test
    void shouldCollectTheUploadsOfAVersionThatNeverCommittedOnceOlderThanTheWindow() throws Exception {
        ShardPublisher empty = new ShardPublisher(store, "cams", "v2", Files.createDirectories(tmp.resolve("v2")), CLOCK);
        store.useClock(Clock.offset(CLOCK, java.time.Duration.ofHours(-2)));
        String crashed = empty.write(0, 1, 3).objectKey();
        store.useClock(CLOCK);
        String inFlight = empty.write(0, 2, 3).objectKey();

        Run expire = run("expire", "cams", "v2", "--json");

        assertThat(expire.exitCode()).as(expire.err()).isZero();
        assertThat(expire.json().get("snapshotId").isNull()).isTrue();
        // The shard and its page index (dataset/FORMAT.md: the sidecar beside it), collected together.
        assertThat(expire.json().get("deletedObjects")).extracting(JsonNode::asText).containsExactly(crashed, crashed + ".pages.json");
        assertThat(expire.json().get("keptInsideSafetyWindow")).extracting(JsonNode::asText).containsExactly(inFlight, inFlight + ".pages.json");
        assertThat(store.head(crashed)).isEmpty();
        assertThat(store.head(inFlight)).isPresent();
    }

    private Run run(String... args) {
        return DatasetCommandRunner.run(store, args);
    }
}
