package io.shardflow.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.lifecycle.Tags;
import io.shardflow.dataset.log.CheckpointChains;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.LogView;
import io.shardflow.dataset.log.ShardPublisher;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.shard.SampleRow;
import io.shardflow.dataset.shard.ShardReader;
import io.shardflow.dataset.spec.DatasetSpec;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.store.S3ProxyServer;
import io.shardflow.dataset.store.S3Settings;
import io.shardflow.dataset.store.StoredObject;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.stack.LocalStack;
import io.shardflow.stack.S3Kind;
import io.shardflow.stack.StackConfig;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of {@code dataset compact}, {@code delete} and {@code expire}, each a real JVM on a real
 * S3Proxy and a real MinIO, at random moments; after every kill the log must be valid (the snapshot verifier, with
 * the checkpoints checked against the entries) and every kept snapshot whole; a re-run finishes the
 * job. At the end: every sample that should stay is in the latest snapshot once, the tagged snapshot
 * still verifies, no object in the bucket holds a deleted row, and no shard object is left that no
 * kept snapshot names.
 */
class LifecycleKillTest {

    private static final String D = "cams";
    private static final String V = "v1";
    private static final long SEED = Long.getLong("lifecycle.kill.seed", 20260301L);
    private static final int KILLS_PER_COMMAND = Integer.getInteger("lifecycle.kills", 3);

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(S3Kind.class)
    void shouldKeepTheLogValidAndFinishTheJobWhenCompactDeleteAndExpireAreKilledAnywhere(S3Kind kind) throws Exception {
        if (kind == S3Kind.S3PROXY) {
            assumeTrue(S3ProxyServer.jar().isPresent(), "S3Proxy jar not installed (scripts/fetch-tools.sh)");
            try (S3ProxyServer server = S3ProxyServer.start(tmp.resolve("s3proxy")); S3ObjectStore s3 = server.store("kill")) {
                killAndRerun(s3, new S3Settings(server.endpoint(), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY,
                        "kill", S3Settings.DEFAULT_REGION));
            }
        } else {
            // The local stack is the project's way to run MinIO; its broker and registry sit idle here.
            try (LocalStack stack = LocalStack.start(StackConfig.defaults(tmp.resolve("stack")).withS3Kind(kind)
                    .withBucket("kill"));
                 S3ObjectStore s3 = S3ObjectStore.connect(new S3Settings(stack.s3Endpoint(), stack.s3AccessKey(),
                         stack.s3SecretKey(), stack.bucket(), S3Settings.DEFAULT_REGION))) {
                killAndRerun(s3, new S3Settings(stack.s3Endpoint(), stack.s3AccessKey(), stack.s3SecretKey(),
                        stack.bucket(), S3Settings.DEFAULT_REGION));
            }
        }
    }

    private void killAndRerun(S3ObjectStore s3, S3Settings server) throws Exception {
        Random random = new Random(SEED);
        Clock clock = Clock.systemUTC();
        ShardPublisher publisher = new ShardPublisher(s3, D, V, Files.createDirectories(tmp.resolve("pub")), clock);
        for (int sequence = 1; sequence <= 10; sequence++) {
            publisher.publish(sequence, 3, 4, 2);
        }
        CommitLog log = new CommitLog(s3, D, V, clock);
        Tags.create(log, "gold", 4, "test");
        Set<String> expected = sampleIds(s3, log.latest(), row -> !row.deviceId().equals("dev-1"));
        Set<String> tagged = sampleIds(s3, log.snapshot(4), row -> true);
        Map<String, String> env = Map.of("SHARDFLOW_S3_ENDPOINT", server.endpoint(),
                "SHARDFLOW_S3_ACCESS_KEY", server.accessKey(), "SHARDFLOW_S3_SECRET_KEY", server.secretKey(),
                "SHARDFLOW_S3_BUCKET", server.bucket(), "SHARDFLOW_PROGRESS", "lines");
        List<List<String>> commands = List.of(
                List.of("dataset", "compact", D, V, "--target-samples", "20"),
                List.of("dataset", "delete", D, V, "--device-id", "dev-1", "--reason", "faulty sensor"),
                List.of("dataset", "expire", D, V, "--keep-last", "1", "--safety-window", "PT0S"));
        int killed = 0;
        for (List<String> command : commands) {
            for (int kill = 0; kill < KILLS_PER_COMMAND; kill++) {
                if (runAndKill(command, env, 200 + random.nextInt(3500))) {
                    killed++;
                }
                assertLogValid(s3, publisher.spec(), clock);
            }
            int exit = run(command, env);
            // A delete whose earlier run got through before its kill finds nothing left to delete.
            assertThat(exit).as("%s after kills", command).isIn(0, command.contains("delete") ? 1 : 0);
            assertLogValid(s3, publisher.spec(), clock);
        }
        assertThat(killed).as("processes killed before they finished").isPositive();

        CommitLog fresh = new CommitLog(s3, D, V, clock);
        Snapshot latest = fresh.latest();
        assertThat(new SnapshotVerifier(s3, tmp).verify(publisher.spec(), latest, clock).problems()).isEmpty();
        assertThat(sampleIds(s3, latest, row -> true)).isEqualTo(expected);
        assertThat(sampleIds(s3, fresh.snapshot(4), row -> true)).isEqualTo(tagged);
        NavigableSet<Long> kept = kept(fresh.view());
        Set<String> named = fresh.objectKeysOf(kept);
        Set<String> stored = new HashSet<>();
        for (StoredObject object : s3.listObjects(DatasetLayout.versionPrefix(D, V) + "shards/", null, 1000)) {
            stored.add(object.key());
        }
        assertThat(stored).as("shard objects and their page indexes = those kept snapshots name").isEqualTo(named);
        // Every shard object is read: dev-1's rows survive only in the objects of the tagged snapshot 4,
        // which is kept on purpose (an erasure must not be tagged, or its tag outlives the delete).
        Set<String> taggedKeys = fresh.objectKeysOf(new TreeSet<>(Set.of(4L)));
        ShardReader reader = new ShardReader();
        for (String key : stored.stream().filter(k -> k.endsWith(".h5")).toList()) {
            Path file = tmp.resolve("every.h5");
            s3.download(key, file);
            List<SampleRow> rows = reader.read(file).rows();
            Files.delete(file);
            if (!taggedKeys.contains(key)) {
                assertThat(rows).extracting(SampleRow::deviceId).as(key).doesNotContain("dev-1");
            }
        }
        CheckpointChains chains = new CheckpointChains(s3, D, V);
        NavigableSet<Long> checkpoints = chains.list().navigableKeySet();
        NavigableSet<Long> opened = new TreeSet<>(kept);
        opened.add(Long.MAX_VALUE);
        assertThat(checkpoints).as("checkpoints = those opening a kept snapshot reads")
                .isEqualTo(chains.needed(opened, checkpoints));
    }

    private static NavigableSet<Long> kept(LogView view) {
        NavigableSet<Long> kept = new TreeSet<>();
        for (long id = 1; id <= view.latestId(); id++) {
            if (!view.expired().contains(id)) {
                kept.add(id);
            }
        }
        return kept;
    }

    private void assertLogValid(S3ObjectStore s3, DatasetSpec spec, Clock clock) {
        CommitLog fresh = new CommitLog(s3, D, V, clock);
        LogView view = fresh.view();
        SnapshotVerifier verifier = new SnapshotVerifier(s3, tmp);
        assertThat(verifier.verify(spec, view.latest(), clock).problems()).as("latest snapshot").isEmpty();
        for (long id : List.of(4L, view.latestId() - 1)) {
            if (id > 0 && !view.expired().contains(id)) {
                assertThat(verifier.verify(fresh.snapshot(id)).problems()).as("kept snapshot %d", id).isEmpty();
            }
        }
    }

    private Set<String> sampleIds(S3ObjectStore s3, Snapshot snapshot, java.util.function.Predicate<SampleRow> keep) {
        List<String> ids = new ArrayList<>();
        new SnapshotVerifier(s3, tmp).verify(snapshot, (shard, row) -> {
            if (keep.test(row)) {
                ids.add(row.sampleId());
            }
        });
        Set<String> unique = new HashSet<>(ids);
        assertThat(unique).as("no sample twice in snapshot %d", snapshot.snapshotId()).hasSize(ids.size());
        return unique;
    }

    /** Starts the command and kills it (SIGKILL) after {@code millis}; true if it was still running. */
    private boolean runAndKill(List<String> command, Map<String, String> env, int millis) throws Exception {
        Process process = start(command, env);
        if (process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            return false;
        }
        process.destroyForcibly().waitFor();
        return true;
    }

    private int run(List<String> command, Map<String, String> env) throws Exception {
        Process process = start(command, env);
        assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("%s finished", command).isTrue();
        return process.exitValue();
    }

    private Process start(List<String> command, Map<String, String> env) throws Exception {
        List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                Shardflow.class.getName()));
        line.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(line).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(tmp.resolve("commands.log").toFile()));
        builder.environment().putAll(env);
        return builder.start();
    }
}
