package io.shardflow.it.store;

import io.shardflow.dataset.store.S3ObjectStoreContract;
import io.shardflow.dataset.store.S3Settings;
import io.shardflow.it.support.TestStack;
import io.shardflow.stack.S3Kind;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The object-store contract (create-only puts, multipart included) on a real S3Proxy server. */
class S3ProxyStoreContractTest extends S3ObjectStoreContract {

    @TempDir
    static Path work;
    private static TestStack stack;

    @BeforeAll
    static void startServer() {
        stack = TestStack.start(work, S3Kind.S3PROXY);
    }

    @AfterAll
    static void stopServer() {
        stack.close();
    }

    @Override
    protected S3Settings serverSettings() {
        return stack.endpoints().s3Settings();
    }
}
