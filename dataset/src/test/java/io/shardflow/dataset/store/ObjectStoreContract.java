package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Behaviour every {@link ObjectStore} must have. Subclass it with a store factory, e.g. in
 * integration tests against S3Proxy and MinIO (it ships in the test-jar). Each test works under
 * its own random prefix, so a shared bucket is fine.
 */
public abstract class ObjectStoreContract {

    @TempDir
    protected Path tmp;

    /** A store on an existing (or ensured) bucket. */
    protected abstract ObjectStore store();

    protected final String prefix = "contract-" + UUID.randomUUID() + "/";

    @Test
    void shouldCreateOnceAndKeepTheFirstBytes() {
        ObjectStore store = store();
        String key = prefix + "a.json";

        assertThat(store.putIfAbsent(key, bytes("first"))).isEqualTo(PutOutcome.CREATED);
        assertThat(store.putIfAbsent(key, bytes("second"))).isEqualTo(PutOutcome.ALREADY_EXISTS);

        assertThat(store.get(key)).hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("first"));
    }

    @Test
    void shouldPutFilesCreateOnly() throws Exception {
        ObjectStore store = store();
        Path file = Files.write(tmp.resolve("f.bin"), bytes("file body"));
        Path other = Files.write(tmp.resolve("g.bin"), bytes("other body"));

        assertThat(store.putIfAbsent(prefix + "f.bin", file)).isEqualTo(PutOutcome.CREATED);
        assertThat(store.putIfAbsent(prefix + "f.bin", other)).isEqualTo(PutOutcome.ALREADY_EXISTS);

        Path target = tmp.resolve("down/f.bin");
        Files.createDirectories(target.getParent());
        store.download(prefix + "f.bin", target);
        assertThat(target).hasBinaryContent(bytes("file body"));
    }

    @Test
    void shouldReportMissingObjects() {
        ObjectStore store = store();

        assertThat(store.get(prefix + "missing")).isEmpty();
        assertThat(store.head(prefix + "missing")).isEmpty();
        assertThatThrownBy(() -> store.download(prefix + "missing", tmp.resolve("x")))
                .isInstanceOf(ObjectNotFoundException.class)
                .hasMessageContaining(prefix + "missing")
                .hasMessageContaining("download");
    }

    @Test
    void shouldReadByteRangesThatReassembleTheObject() throws Exception {
        ObjectStore store = store();
        byte[] body = new byte[10_000];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 31 + 7);
        }
        store.putIfAbsent(prefix + "r.bin", body);

        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (long offset = 0; offset < body.length; offset += 4096) {
            try (InputStream in = store.getRange(prefix + "r.bin", offset, 4096)) {
                joined.write(in.readAllBytes());
            }
        }
        assertThat(joined.toByteArray()).isEqualTo(body);
        try (InputStream in = store.getRange(prefix + "r.bin", 9_990, 4096)) {
            assertThat(in.readAllBytes()).as("a range past the end stops at the end")
                    .isEqualTo(Arrays.copyOfRange(body, 9_990, 10_000));
        }
        assertThatThrownBy(() -> store.getRange(prefix + "missing", 0, 10)).isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void shouldHeadSize() {
        ObjectStore store = store();
        store.putIfAbsent(prefix + "h", new byte[1234]);

        assertThat(store.head(prefix + "h")).hasValueSatisfying(info -> {
            assertThat(info.key()).isEqualTo(prefix + "h");
            assertThat(info.size()).isEqualTo(1234);
            assertThat(info.etag()).isNotBlank().doesNotContain("\"");
        });
    }

    @Test
    void shouldListInLexicalOrderAfterTheCursor() {
        ObjectStore store = store();
        for (String name : List.of("log/003", "log/001", "log/002", "log/010", "other/001")) {
            store.putIfAbsent(prefix + name, bytes(name));
        }

        assertThat(store.list(prefix + "log/", null, 100))
                .containsExactly(prefix + "log/001", prefix + "log/002", prefix + "log/003", prefix + "log/010");
        assertThat(store.list(prefix + "log/", prefix + "log/002", 100))
                .containsExactly(prefix + "log/003", prefix + "log/010");
        assertThat(store.list(prefix + "log/", null, 2)).containsExactly(prefix + "log/001", prefix + "log/002");
        assertThat(store.list(prefix + "log/", prefix + "log/010", 100)).isEmpty();
    }

    @Test
    void shouldListImmediateSubPrefixes() {
        ObjectStore store = store();
        store.putIfAbsent(prefix + "datasets/a/v1/spec.json", bytes("x"));
        store.putIfAbsent(prefix + "datasets/a/v2/spec.json", bytes("x"));
        store.putIfAbsent(prefix + "datasets/b/v1/spec.json", bytes("x"));
        store.putIfAbsent(prefix + "datasets/top.txt", bytes("x"));

        assertThat(store.listPrefixes(prefix + "datasets/"))
                .containsExactly(prefix + "datasets/a/", prefix + "datasets/b/");
        assertThat(store.listPrefixes(prefix + "datasets/a/"))
                .containsExactly(prefix + "datasets/a/v1/", prefix + "datasets/a/v2/");
        assertThat(store.listPrefixes(prefix + "nothing/")).isEmpty();
    }

    @Test
    void shouldLetExactlyOneOfManyConcurrentWritersCreateAKey() throws Exception {
        ObjectStore store = store();
        String key = prefix + "race";
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<PutOutcome>> outcomes = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                byte[] body = bytes("writer-" + i);
                Callable<PutOutcome> put = () -> {
                    start.await();
                    return store.putIfAbsent(key, body);
                };
                outcomes.add(pool.submit(put));
            }
            start.countDown();
            List<PutOutcome> results = new ArrayList<>();
            for (Future<PutOutcome> f : outcomes) {
                results.add(f.get());
            }
            assertThat(results).containsOnlyOnce(PutOutcome.CREATED);
        } finally {
            pool.shutdownNow();
        }
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
