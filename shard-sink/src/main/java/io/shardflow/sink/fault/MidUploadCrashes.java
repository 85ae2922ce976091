package io.shardflow.sink.fault;

import io.shardflow.dataset.store.ObjectInfo;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.PutOutcome;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * FAULT INJECTION: an object store that, when {@link CrashPoint#MID_UPLOAD} fires, halts the process
 * a few milliseconds into a shard object's create-only PUT, so the crash lands while the request is
 * on the wire (the server may or may not have stored the object). Only wrapped around the real store
 * when the point is listed.
 */
public final class MidUploadCrashes implements ObjectStore {

    private static final long MAX_DELAY_MILLIS = 40;

    private final ObjectStore store;
    private final CrashPoints points;

    private MidUploadCrashes(ObjectStore store, CrashPoints points) {
        this.store = store;
        this.points = points;
    }

    /** The store itself when mid-upload crashes are not configured. */
    public static ObjectStore wrap(ObjectStore store, CrashPoints points) {
        return points.listed(CrashPoint.MID_UPLOAD) ? new MidUploadCrashes(store, points) : store;
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
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
        return store.putIfAbsent(key, file);
    }

    @Override
    public PutOutcome putIfAbsent(String key, byte[] bytes) {
        return store.putIfAbsent(key, bytes);
    }

    @Override
    public Optional<byte[]> get(String key) {
        return store.get(key);
    }

    @Override
    public void download(String key, Path target) {
        store.download(key, target);
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        return store.head(key);
    }

    @Override
    public List<String> list(String prefix, String startAfter, int maxKeys) {
        return store.list(prefix, startAfter, maxKeys);
    }

    @Override
    public List<String> listPrefixes(String prefix) {
        return store.listPrefixes(prefix);
    }

    @Override
    public void ensureBucket() {
        store.ensureBucket();
    }
}
