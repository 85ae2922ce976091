package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.minio.MinioAsyncClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store contract plus the multipart create-only checks against a real S3 server. Subclasses say
 * which server: {@code S3ObjectStoreLiveTest} one given by system properties, the integration tests
 * S3Proxy and MinIO started by the local stack.
 */
public abstract class S3ObjectStoreContract extends ObjectStoreContract {

    private S3Settings settings;
    private S3ObjectStore store;

    /** The server to test against; its bucket is created if missing. */
    protected abstract S3Settings serverSettings();

    @BeforeEach
    void connect() {
        settings = serverSettings();
        store = S3ObjectStore.connect(settings);
        store.ensureBucket();
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Test
    void shouldCreateBigObjectsWithMultipartOnlyOnce() throws Exception {
        MinioAsyncClient client = MinioAsyncClient.builder().endpoint(settings.endpoint())
                .credentials(settings.accessKey(), settings.secretKey()).region(settings.region()).build();
        long partSize = S3ObjectStore.MIN_PART_SIZE;
        S3ObjectStore multipart = new S3ObjectStore(client, settings.bucket(), settings.region(), partSize, true);
        byte[] first = randomBytes((int) (partSize * 2 + 12345), 1);
        byte[] second = randomBytes(first.length, 2);
        Path firstFile = Files.write(tmp.resolve("first.bin"), first);
        Path secondFile = Files.write(tmp.resolve("second.bin"), second);
        String key = prefix + "big.bin";

        assertThat(multipart.putIfAbsent(key, firstFile)).isEqualTo(PutOutcome.CREATED);
        assertThat(multipart.putIfAbsent(key, secondFile)).isEqualTo(PutOutcome.ALREADY_EXISTS);
        assertThat(multipart.putIfAbsent(prefix + "big-bytes.bin", second)).isEqualTo(PutOutcome.CREATED);

        Path back = tmp.resolve("back.bin");
        multipart.download(key, back);
        assertThat(back).hasBinaryContent(first);
        assertThat(multipart.get(prefix + "big-bytes.bin")).hasValueSatisfying(b -> assertThat(b).isEqualTo(second));
        multipart.close();
    }

    @Test
    void shouldRefuseTheMultipartCompleteWhenTheKeyAppearedDuringTheUpload() {
        // Without the pre-upload HEAD, only If-None-Match on CompleteMultipartUpload stops the overwrite.
        MinioAsyncClient client = MinioAsyncClient.builder().endpoint(settings.endpoint())
                .credentials(settings.accessKey(), settings.secretKey()).region(settings.region()).build();
        long partSize = S3ObjectStore.MIN_PART_SIZE;
        S3ObjectStore owner = new S3ObjectStore(client, settings.bucket(), settings.region(), partSize, true);
        MultipartPut unguarded = new MultipartPut(owner, new MinioLowLevel(client), settings.bucket(), settings.region(),
                partSize, S3ObjectStore.PARALLEL_PARTS, false);
        String key = prefix + "late.bin";
        store.putIfAbsent(key, bytes("winner"));

        assertThat(unguarded.put(key, randomBytes((int) (partSize * 2 + 1), 3))).isEqualTo(PutOutcome.ALREADY_EXISTS);

        assertThat(store.get(key)).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("winner")));
        owner.close();
    }

    @Test
    void shouldCreateAFileSentWithItsOwnHashOnlyOnce() throws Exception {
        byte[] bytes = randomBytes(3 * 65_536 + 17, 4);
        Path file = Files.write(tmp.resolve("shard.h5"), bytes);
        String sha256 = io.shardflow.dataset.pages.ShardFileDigest.sha256Hex(bytes, 0, bytes.length);
        String key = prefix + "hashed.bin";

        assertThat(store.putIfAbsent(key, file, sha256)).isEqualTo(PutOutcome.CREATED);
        assertThat(store.putIfAbsent(key, file, sha256)).isEqualTo(PutOutcome.ALREADY_EXISTS);

        assertThat(store.get(key)).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
    }

    @Test
    void shouldRefuseAFileWhoseGivenHashIsNotItsOwn() throws Exception {
        Path file = Files.write(tmp.resolve("corrupt.h5"), randomBytes(65_536, 5));
        String otherHash = io.shardflow.dataset.pages.ShardFileDigest.sha256Hex(new byte[] {1}, 0, 1);
        String key = prefix + "corrupt.bin";

        // The hash is signed as the payload's and the server checks the body against it (S3Proxy and MinIO do):
        // a shard file damaged between its digest and its upload is refused rather than stored under the entry's hash.
        assertThatThrownBy(() -> store.putIfAbsent(key, file, otherHash)).isInstanceOf(ObjectStoreException.class);
        assertThat(store.head(key)).isEmpty();
    }

    @Test
    void shouldCreateABufferSentWithItsOwnHashOnlyOnceLeavingTheBufferUnmoved() {
        byte[] bytes = randomBytes(3 * 65_536 + 17, 6);
        String sha256 = io.shardflow.dataset.pages.ShardFileDigest.sha256Hex(bytes, 0, bytes.length);
        // A direct buffer whose bytes start past position 0, as a view of native memory may.
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(bytes.length + 9);
        buffer.position(9);
        buffer.put(bytes).position(9);
        java.nio.ByteBuffer view = buffer.slice().asReadOnlyBuffer();
        String key = prefix + "from-memory.bin";

        assertThat(store.putIfAbsent(key, view, sha256)).isEqualTo(PutOutcome.CREATED);
        assertThat(store.putIfAbsent(key, view, sha256)).isEqualTo(PutOutcome.ALREADY_EXISTS);

        assertThat(view.position()).isZero();
        assertThat(view.remaining()).isEqualTo(bytes.length);
        assertThat(store.get(key)).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
    }

    @Test
    void shouldRefuseABufferWhoseGivenHashIsNotItsOwn() {
        String otherHash = io.shardflow.dataset.pages.ShardFileDigest.sha256Hex(new byte[] {1}, 0, 1);
        String key = prefix + "corrupt-memory.bin";

        assertThatThrownBy(() -> store.putIfAbsent(key, java.nio.ByteBuffer.wrap(randomBytes(65_536, 7)), otherHash))
                .isInstanceOf(ObjectStoreException.class);
        assertThat(store.head(key)).isEmpty();
    }

    @Test
    void shouldSendABigBufferAsMultipartOnlyOnce() {
        MinioAsyncClient client = MinioAsyncClient.builder().endpoint(settings.endpoint())
                .credentials(settings.accessKey(), settings.secretKey()).region(settings.region()).build();
        long partSize = S3ObjectStore.MIN_PART_SIZE;
        S3ObjectStore multipart = new S3ObjectStore(client, settings.bucket(), settings.region(), partSize, true);
        byte[] bytes = randomBytes((int) (partSize * 2 + 4321), 8);
        String sha256 = io.shardflow.dataset.pages.ShardFileDigest.sha256Hex(bytes, 0, bytes.length);
        java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect(bytes.length + 3);
        buffer.position(3);
        buffer.put(bytes).position(3);
        String key = prefix + "big-memory.bin";

        assertThat(multipart.putIfAbsent(key, buffer, sha256)).isEqualTo(PutOutcome.CREATED);
        assertThat(multipart.putIfAbsent(key, buffer, sha256)).isEqualTo(PutOutcome.ALREADY_EXISTS);

        assertThat(buffer.position()).isEqualTo(3);
        assertThat(multipart.get(key)).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes));
        multipart.close();
    }

    private static byte[] randomBytes(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
