package io.shardflow.dataset.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.minio.MinioAsyncClient;
import io.minio.errors.ErrorResponseException;
import io.minio.messages.ErrorResponse;
import java.net.ServerSocket;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** What can be checked without an S3 server; S3ObjectStoreLiveTest covers the rest. */
class S3ObjectStoreTest {

    @Test
    void shouldRefuseAPartSizeBelowTheS3Minimum() {
        MinioAsyncClient client = MinioAsyncClient.builder().endpoint("http://127.0.0.1:1").credentials("a", "b").build();

        assertThatThrownBy(() -> new S3ObjectStore(client, "bucket", "us-east-1", 1024 * 1024, false))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minimum");
    }

    @Test
    void shouldNameOperationAndKeyWhenTheServerIsUnreachable() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        try (S3ObjectStore store = S3ObjectStore.connect(
                new S3Settings("http://127.0.0.1:" + closedPort, "ak", "sk", "shardflow", null))) {

            assertThatThrownBy(() -> store.putIfAbsent("datasets/d/v/log/1.json", new byte[10]))
                    .isInstanceOf(ObjectStoreException.class)
                    .hasMessageContaining("putIfAbsent")
                    .hasMessageContaining("datasets/d/v/log/1.json")
                    .satisfies(e -> assertThat(((ObjectStoreException) e).key()).isEqualTo("datasets/d/v/log/1.json"));
            assertThatThrownBy(() -> store.get("some/key"))
                    .isInstanceOf(ObjectStoreException.class)
                    .hasMessageContaining("get of 'some/key'");
        }
    }

    @Test
    void shouldRecognisePreconditionFailedAsTakenKey() {
        Throwable failed = error("PreconditionFailed", 412);

        assertThat(S3Errors.isPreconditionFailed(S3Errors.unwrap(new CompletionException(failed)))).isTrue();
        assertThat(S3Errors.isPreconditionFailed(error("SomeVendorCode", 412))).isTrue();
        assertThat(S3Errors.isPreconditionFailed(error("NoSuchKey"))).isFalse();
        assertThat(S3Errors.isConditionalConflict(error("ConditionalRequestConflict"))).isTrue();
    }

    @Test
    void shouldTellAMissingObjectFromAMissingBucket() {
        assertThat(S3Errors.isNoSuchKey(error("NoSuchKey"))).isTrue();
        assertThat(S3Errors.isNoSuchKey(error("NoSuchBucket"))).isFalse();
    }

    @Test
    void shouldDescribeFailuresWithTheS3Code() {
        assertThat(S3Errors.describe(error("AccessDenied"))).contains("AccessDenied");
    }

    private static ErrorResponseException error(String code) {
        return error(code, 400);
    }

    private static ErrorResponseException error(String code, int status) {
        Response response = new Response.Builder()
                .request(new Request.Builder().url("http://127.0.0.1:9000/bucket/key").build())
                .protocol(Protocol.HTTP_1_1).code(status).message(code).build();
        return new ErrorResponseException(new ErrorResponse(code, code + " message", "bucket", "key", "/bucket/key", "rid", "hid"),
                response, "trace");
    }
}
