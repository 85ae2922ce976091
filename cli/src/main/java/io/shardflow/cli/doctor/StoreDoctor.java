package io.shardflow.cli.doctor;

import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import io.shardflow.dataset.store.S3ObjectStore;
import io.shardflow.dataset.store.S3Settings;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The object store as the sink needs it: reachable, our keys accepted, the bucket there, and
 * create-only writes honoured (docs/ARCHITECTURE.md, invariant 3): a second {@code If-None-Match: *}
 * PUT of the same key must be refused, and the first object's bytes must survive it.
 */
public final class StoreDoctor {

    static final String PROBE_PREFIX = "doctor/create-only-probe-";

    /** Deletes a key, if the store lets this key do so; ObjectStore itself never deletes (invariant 3). */
    interface ProbeRemover {
        void remove(String key) throws Exception;
    }

    private final Clock clock;
    private final Duration timeout;

    public StoreDoctor(Clock clock, Duration timeout) {
        this.clock = clock;
        this.timeout = timeout;
    }

    public List<Finding> check(S3Settings settings) {
        MinioAsyncClient client = MinioAsyncClient.builder().endpoint(settings.endpoint())
                .credentials(settings.accessKey(), settings.secretKey()).region(settings.region()).build();
        client.setTimeout(timeout.toMillis(), timeout.toMillis(), timeout.toMillis());
        List<Finding> findings = new ArrayList<>();
        try (S3ObjectStore store = new S3ObjectStore(client, settings.bucket(), settings.region())) {
            Finding reach = reach(store, settings);
            findings.add(reach);
            if (reach.status() == Finding.Status.OK) {
                findings.addAll(createOnly(store, key -> client.removeObject(
                        RemoveObjectArgs.builder().bucket(settings.bucket()).object(key).build())
                        .get(timeout.toMillis(), TimeUnit.MILLISECONDS)));
            }
        } finally {
            closeQuietly(client);
        }
        return findings;
    }

    /** One listing of the bucket answers reachability, credentials and the bucket's existence at once. */
    private static Finding reach(ObjectStore store, S3Settings settings) {
        try {
            store.list("datasets/", null, 1);
            return Finding.ok("s3", settings.endpoint() + " answers; bucket " + settings.bucket() + " is readable with key "
                    + settings.accessKey());
        } catch (RuntimeException e) {
            String message = Finding.messageOf(e);
            if (message.contains("NoSuchBucket")) {
                return Finding.fail("s3.bucket", "bucket " + settings.bucket() + " does not exist at " + settings.endpoint(),
                        "create it (mc mb, aws s3 mb) or set --bucket / SHARDFLOW_S3_BUCKET");
            }
            if (message.contains("AccessDenied") || message.contains("InvalidAccessKeyId") || message.contains("SignatureDoesNotMatch")) {
                return Finding.fail("s3.auth", settings.endpoint() + " refused key " + settings.accessKey() + ": " + message,
                        "check SHARDFLOW_S3_ACCESS_KEY and the secret key (SHARDFLOW_S3_SECRET_KEY)");
            }
            return Finding.fail("s3", "no answer from " + settings.endpoint() + ": " + message,
                    "start the S3 server ('bin/shardflow stack up') or point --s3-endpoint / SHARDFLOW_S3_ENDPOINT at it");
        }
    }

    List<Finding> createOnly(ObjectStore store, ProbeRemover remover) {
        String key = PROBE_PREFIX + clock.millis();
        byte[] first = "first".getBytes(StandardCharsets.UTF_8);
        List<Finding> findings = new ArrayList<>();
        try {
            if (store.putIfAbsent(key, first) != PutOutcome.CREATED) {
                findings.add(Finding.fail("s3.create-only", "the probe key " + key + " already existed", "run doctor again"));
                return findings;
            }
            PutOutcome second = store.putIfAbsent(key, "second".getBytes(StandardCharsets.UTF_8));
            boolean kept = store.get(key).map(bytes -> Arrays.equals(bytes, first)).orElse(false);
            if (second == PutOutcome.ALREADY_EXISTS && kept) {
                findings.add(Finding.ok("s3.create-only", "a second PUT with If-None-Match: * was refused (412)"));
            } else {
                findings.add(Finding.fail("s3.create-only", "a second PUT with If-None-Match: * " + (kept ? "was accepted" : "overwrote the object")
                                + ": a zombie sink could overwrite a committed shard",
                        "use an S3 server that honours conditional writes (MinIO, S3Proxy 2.x, AWS S3)"));
            }
        } catch (RuntimeException e) {
            findings.add(Finding.fail("s3.create-only", "cannot write under " + PROBE_PREFIX + ": " + Finding.messageOf(e),
                    "grant this key write access to the bucket (the sink needs it under datasets/)"));
            return findings;
        }
        findings.add(removeProbe(remover, key));
        return findings;
    }

    /** Only a scratch key is removed, and only if the store lets us: a store without deletes is fine. */
    private static Finding removeProbe(ProbeRemover remover, String key) {
        try {
            remover.remove(key);
            return Finding.ok("s3.probe-cleanup", "removed the probe key " + key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Finding.ok("s3.probe-cleanup", "left the probe key " + key + " (interrupted)");
        } catch (Exception e) {
            return Finding.ok("s3.probe-cleanup", "left the probe key " + key + " (this key may not delete: "
                    + Finding.messageOf(e) + ")");
        }
    }

    private static void closeQuietly(MinioAsyncClient client) {
        try {
            client.close();
        } catch (Exception e) {
            // the doctor's findings are already made; a client that does not close cleanly changes none
        }
    }
}
