package io.shardflow.dataset.store;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The S3 store contract against a server of your choice. Runs only when pointed at one, e.g.
 * {@code mvn -pl dataset test -Dtest=S3ObjectStoreLiveTest -Dshardflow.test.s3.endpoint=http://127.0.0.1:9000
 * -Dshardflow.test.s3.accessKey=... -Dshardflow.test.s3.secretKey=...} (bucket: shardflow-test). The test
 * command runs the same contract against S3Proxy and MinIO in integration-tests.
 */
@EnabledIfSystemProperty(named = "shardflow.test.s3.endpoint", matches = ".+")
class S3ObjectStoreLiveTest extends S3ObjectStoreContract {

    @Override
    protected S3Settings serverSettings() {
        return new S3Settings(System.getProperty("shardflow.test.s3.endpoint"),
                System.getProperty("shardflow.test.s3.accessKey", "shardflow"),
                System.getProperty("shardflow.test.s3.secretKey", "shardflow-secret"),
                System.getProperty("shardflow.test.s3.bucket", "shardflow-test"), null);
    }
}
