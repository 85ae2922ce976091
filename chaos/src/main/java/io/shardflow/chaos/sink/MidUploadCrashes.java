package io.shardflow.chaos.sink;

import io.shardflow.dataset.store.ForwardingObjectStore;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * FAULT INJECTION: an object store that, when {@link CrashPoint#MID_UPLOAD} fires, halts the process
 * a few milliseconds into a shard object's create-only PUT, so the crash lands while the request is
 * on the wire (the server may or may not have stored the object). Only wrapped around the real store
 * when the point is listed.
 */
public final class MidUploadCrashes extends ForwardingObjectStore {

    private static final long MAX_DELAY_MILLIS = 40;

    private final CrashPoints points;

    private MidUploadCrashes(ObjectStore store, CrashPoints points) {
        super(store);
        this.points = points;
    }

    /** The store itself when mid-upload crashes are not configured. */
    public static ObjectStore wrap(ObjectStore store, CrashPoints points) {
        return points.listed(CrashPoint.MID_UPLOAD) ? new MidUploadCrashes(store, points) : store;
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
        armForShard(key);
        return delegate.putIfAbsent(key, file);
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file, String sha256Hex) {
        armForShard(key);
        return delegate.putIfAbsent(key, file, sha256Hex);
    }

    @Override
    public PutOutcome putIfAbsent(String key, ByteBuffer bytes, String sha256Hex) {
        armForShard(key);
        return delegate.putIfAbsent(key, bytes, sha256Hex);
    }

    /** For a shard object, when the point fires: halts the process a random few milliseconds from now. */
    private void armForShard(String key) {
        if (key.contains("/shards/") && points.draw(CrashPoint.MID_UPLOAD)) {
            long delay = ThreadLocalRandom.current().nextLong(MAX_DELAY_MILLIS + 1);
            Thread timer = new Thread(() -> {
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                points.injector().halt(CrashPoint.MID_UPLOAD);
            }, "fault-injection-mid-upload");
            timer.setDaemon(true);
            timer.start();
        }
    }
}
