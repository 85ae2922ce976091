package io.shardflow.dataset.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;

/**
 * A thread-safe, create-only {@link ObjectStore} in memory, for unit tests here and in other modules
 * ({@code <type>test-jar</type>}).
 *
 * <p>Failures can be injected with {@link #failWhen}: e.g. {@code failWhen((op, key) -> op.equals("putIfAbsent"))}
 * makes every write throw {@link ObjectStoreException}, like an unreachable S3.
 */
public final class InMemoryObjectStore implements ObjectStore {

    private final ConcurrentSkipListMap<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private final Map<String, Instant> modified = new ConcurrentHashMap<>();
    private volatile Clock clock = Clock.systemUTC();
    private final AtomicInteger puts = new AtomicInteger();
    private volatile BiPredicate<String, String> failure = (operation, key) -> false;

    /** Operations: putIfAbsent, get, download, head, list, listPrefixes, ensureBucket. Key is the prefix for listings. */
    public void failWhen(BiPredicate<String, String> operationAndKey) {
        this.failure = operationAndKey;
    }

    /** The clock that stamps each new object's last-modified time. */
    public void useClock(Clock clock) {
        this.clock = clock;
    }

    public void heal() {
        this.failure = (operation, key) -> false;
    }

    /** Number of putIfAbsent calls, including those that found the key taken. */
    public int putCount() {
        return puts.get();
    }

    public List<String> keys() {
        return new ArrayList<>(objects.keySet());
    }

    @Override
    public PutOutcome putIfAbsent(String key, Path file) {
        try {
            return putIfAbsent(key, Files.readAllBytes(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public PutOutcome putIfAbsent(String key, byte[] bytes) {
        check("putIfAbsent", key);
        puts.incrementAndGet();
        if (objects.putIfAbsent(key, bytes.clone()) != null) {
            return PutOutcome.ALREADY_EXISTS;
        }
        modified.put(key, clock.instant());
        return PutOutcome.CREATED;
    }

    @Override
    public Optional<byte[]> get(String key) {
        check("get", key);
        return Optional.ofNullable(objects.get(key)).map(byte[]::clone);
    }

    @Override
    public void download(String key, Path target) {
        check("download", key);
        byte[] bytes = objects.get(key);
        if (bytes == null) {
            throw new ObjectNotFoundException("download", key);
        }
        try {
            Files.write(target, bytes);
        } catch (IOException e) {
            throw new ObjectStoreException("download", key, e.toString(), e);
        }
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
        check("head", key);
        return Optional.ofNullable(objects.get(key)).map(b -> new ObjectInfo(key, b.length, md5(b)));
    }

    @Override
    public List<String> list(String prefix, String startAfter, int maxKeys) {
        check("list", prefix);
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
        }
        List<String> keys = new ArrayList<>();
        var tail = startAfter == null ? objects.tailMap(prefix, true) : objects.tailMap(startAfter, false);
        for (String key : tail.keySet()) {
            if (keys.size() >= maxKeys) {
                break;
            }
            if (key.startsWith(prefix)) {
                keys.add(key);
            } else if (key.compareTo(prefix) > 0) {
                break;
            }
        }
        return keys;
    }

    @Override
    public List<StoredObject> listObjects(String prefix, String startAfter, int maxKeys) {
        check("listObjects", prefix);
        List<StoredObject> listed = new ArrayList<>();
        for (String key : list(prefix, startAfter, maxKeys)) {
            byte[] bytes = objects.get(key);
            if (bytes != null) {
                listed.add(new StoredObject(key, bytes.length, modified.getOrDefault(key, Instant.EPOCH)));
            }
        }
        return listed;
    }

    @Override
    public void delete(String key) {
        check("delete", key);
        objects.remove(key);
        modified.remove(key);
    }

    @Override
    public List<String> listPrefixes(String prefix) {
        check("listPrefixes", prefix);
        TreeSet<String> prefixes = new TreeSet<>();
        for (String key : objects.tailMap(prefix, true).keySet()) {
            if (!key.startsWith(prefix)) {
                break;
            }
            int slash = key.indexOf('/', prefix.length());
            if (slash >= 0) {
                prefixes.add(key.substring(0, slash + 1));
            }
        }
        return new ArrayList<>(prefixes);
    }

    @Override
    public void ensureBucket() {
        check("ensureBucket", "");
    }

    private void check(String operation, String key) {
        if (failure.test(operation, key)) {
            throw new ObjectStoreException(operation, key, "injected failure");
        }
    }

    private static String md5(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
