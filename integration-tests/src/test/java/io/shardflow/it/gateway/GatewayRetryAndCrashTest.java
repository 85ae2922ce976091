package io.shardflow.it.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.shardflow.dataset.log.CommitLog;
import io.shardflow.dataset.log.Snapshot;
import io.shardflow.dataset.verify.SnapshotVerifier;
import io.shardflow.dataset.verify.SnapshotVerifier.VerificationReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retries and crashes never duplicate a sample, and never lose one that was answered 2xx: checked
 * from the committed dataset (the snapshot verifier lists every sample id of every shard), with the
 * real gateway process, broker, ingest-app and shard-sink.
 */
class GatewayRetryAndCrashTest {

    @TempDir
    static Path work;
    static GatewayFixture fixture;
    static String token;

    @BeforeAll
    static void start() {
        fixture = GatewayFixture.start(work, Map.of()).withPipeline();
        token = fixture.token("phone-storm");
        fixture.stack.createDataset(GatewayFixture.DATASET, "v2", "crash test", "image:float32:3x8x8", "label:int64");
    }

    @AfterAll
    static void stop() {
        fixture.close();
    }

    @Test
    void shouldKeepEverySampleOnceThroughARetryStorm() throws Exception {
        GatewayClient phone = new GatewayClient(fixture.url(), token);
        int batches = 20;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> sends = new ArrayList<>();
        for (int b = 0; b < batches; b++) {
            int batch = b;
            byte[] body = GatewayClient.JSON.writeValueAsBytes(GatewayClient.batch(IntStream.range(0, 10)
                    .mapToObj(i -> GatewayClient.sample("storm-" + batch + "-" + i, batch * 10L + i)).toList()));
            // Each batch five times at once: with and without an Idempotency-Key, and with a client that
            // gives up after 30 ms and sends again (the answer it missed may well have been 200).
            for (int copy = 0; copy < 5; copy++) {
                String key = copy < 3 ? "batch-" + batch : null;
                Duration timeout = copy == 4 ? Duration.ofMillis(30) : Duration.ofSeconds(60);
                sends.add(pool.submit(() -> {
                    for (int attempt = 0; attempt < 10; attempt++) {
                        try {
                            int status = phone.post(body, "application/json", key, timeout).status();
                            if (status == 200) {
                                return null;
                            }
                            assertThat(status).as("a retry may meet the first try still running").isIn(409, 429, 503);
                        } catch (IOException e) {
                            // The client gave up waiting, or the connection broke before an answer (on a
                            // loaded machine the gateway drops a body that arrives below its minimum data
                            // rate, and the JDK client does not resend a POST by itself): a phone sends again.
                        }
                        Thread.sleep(100);
                    }
                    return null;
                }));
            }
        }
        for (Future<?> send : sends) {
            send.get(3, TimeUnit.MINUTES);
        }
        pool.shutdown();

        Set<String> expected = new HashSet<>();
        IntStream.range(0, batches).forEach(b -> IntStream.range(0, 10).forEach(i -> expected.add("storm-" + b + "-" + i)));
        assertCommittedExactlyOnce(fixture.log(), expected, expected);
    }

    @Test
    void shouldCommitEverySample2xxdBeforeAKillExactlyOnce() throws Exception {
        GatewayClient phone = new GatewayClient(fixture.url(), token, "v2");
        Set<String> acknowledged = ConcurrentHashMap.newKeySet();
        Set<String> sent = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService load = Executors.newFixedThreadPool(4);
        List<Future<?>> clients = new ArrayList<>();
        for (int c = 0; c < 4; c++) {
            int client = c;
            clients.add(load.submit(() -> {
                for (int b = 0; !stop.get(); b++) {
                    int batch = b;
                    List<ObjectNode> samples = IntStream.range(0, 5).mapToObj(i -> GatewayClient.sample("kill-" + client + "-" + batch + "-" + i,
                            batch * 5L + i)).toList();
                    samples.forEach(s -> sent.add(s.get("sample_id").asText()));
                    try {
                        if (phone.postJson(GatewayClient.batch(samples), null).status() == 200) {
                            samples.forEach(s -> acknowledged.add(s.get("sample_id").asText()));
                        }
                    } catch (java.io.IOException e) {
                        Thread.sleep(200); // the gateway is down: this batch is left unknown, as a phone that gives up
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 100);
        fixture.gateway.kill();
        int beforeRestart = acknowledged.size();
        fixture.restartGateway();
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= beforeRestart + 100);
        stop.set(true);
        for (Future<?> client : clients) {
            client.get(2, TimeUnit.MINUTES);
        }
        load.shutdown();

        CommitLog log = new CommitLog(fixture.stack.store(), GatewayFixture.DATASET, "v2", Clock.systemUTC());
        assertCommittedExactlyOnce(log, acknowledged, sent);
    }

    /** Every {@code mustHave} id is committed exactly once; nothing outside {@code mayHave} is. */
    private static void assertCommittedExactlyOnce(CommitLog log, Set<String> mustHave, Set<String> mayHave) throws Exception {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> committedIds(log).containsAll(mustHave));
        Thread.sleep(4000); // two more seal ages: a duplicate, were there one, would have been committed by now
        Snapshot snapshot = log.latest();
        VerificationReport report = new SnapshotVerifier(fixture.stack.store(), Files.createTempDirectory(work, "verify")).verify(snapshot);
        assertThat(report.problems()).as("no sample id twice, every object as its entry says").isEmpty();
        assertThat(report.duplicateIds()).isEmpty();
        assertThat(snapshot.sampleCount()).isEqualTo(report.sampleIds().size());
        assertThat(report.sampleIds()).containsAll(mustHave);
        assertThat(mayHave).containsAll(report.sampleIds());
    }

    private static Set<String> committedIds(CommitLog log) throws Exception {
        Snapshot snapshot = log.latest();
        if (snapshot.sampleCount() == 0) {
            return Collections.emptySet();
        }
        return new SnapshotVerifier(fixture.stack.store(), Files.createTempDirectory(work, "ids")).verify(snapshot).sampleIds();
    }
}
