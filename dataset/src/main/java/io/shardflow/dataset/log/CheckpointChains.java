package io.shardflow.dataset.log;

import io.shardflow.dataset.layout.DatasetLayout;
import io.shardflow.dataset.store.ObjectNotFoundException;
import io.shardflow.dataset.store.ObjectStore;
import io.shardflow.dataset.store.StoredObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which checkpoints of a dataset version a reader needs, for garbage collection: opening snapshot
 * {@code s} reads the newest checkpoint with id {@code <= s} and the chain of bases under it
 * ({@link CommitLog}), so a checkpoint may go once it is in no such chain for any snapshot that
 * stays. Reads only the first bytes of each checkpoint (its base comes before its entries).
 */
public final class CheckpointChains {

    private static final int PAGE = 1000;
    /** Enough compressed bytes to hold a checkpoint's top-level fields before its entries. */
    private static final int HEADER_BYTES = 16 * 1024;

    private final ObjectStore store;
    private final String dataset;
    private final String version;
    private final Map<Long, Long> bases = new HashMap<>();

    public CheckpointChains(ObjectStore store, String dataset, String version) {
        this.store = store;
        this.dataset = dataset;
        this.version = version;
    }

    /** Every checkpoint object of the version, by snapshot id (keys that are not checkpoints are left out). */
    public NavigableMap<Long, StoredObject> list() {
        NavigableMap<Long, StoredObject> found = new TreeMap<>();
        String prefix = DatasetLayout.checkpointPrefix(dataset, version);
        String cursor = null;
        List<StoredObject> page;
        do {
            page = store.listObjects(prefix, cursor, PAGE);
            for (StoredObject object : page) {
                cursor = object.key();
                OptionalLong id = DatasetLayout.checkpointIdOf(dataset, version, object.key());
                if (id.isPresent()) {
                    found.put(id.getAsLong(), object);
                }
            }
        } while (page.size() == PAGE);
        return found;
    }

    /**
     * The checkpoints opening any of {@code snapshots} reads, given the checkpoints that exist: for each
     * snapshot the newest existing checkpoint at or before it and its chain. {@link Long#MAX_VALUE}
     * stands for opening the latest. A chain that is already broken is followed as far as it goes.
     */
    public NavigableSet<Long> needed(NavigableSet<Long> snapshots, NavigableSet<Long> existing) {
        NavigableSet<Long> needed = new TreeSet<>();
        for (long snapshot : snapshots) {
            Long link = existing.floor(snapshot);
            while (link != null && link > 0 && existing.contains(link) && needed.add(link)) {
                link = base(link);
            }
        }
        return needed;
    }

    /** The ids of checkpoint {@code id}'s chain, newest first; throws if a link is missing or unreadable. */
    public List<Long> chain(long id) {
        List<Long> chain = new ArrayList<>();
        for (long link = id; link > 0; link = base(link)) {
            if (store.head(DatasetLayout.checkpointKey(dataset, version, link)).isEmpty()) {
                throw new IllegalStateException("checkpoint " + link + " in the chain of " + id + " of " + dataset
                        + "/" + version + " is missing");
            }
            chain.add(link);
        }
        return chain;
    }

    private long base(long id) {
        Long known = bases.get(id);
        if (known != null) {
            return known;
        }
        String key = DatasetLayout.checkpointKey(dataset, version, id);
        long base;
        try (InputStream head = store.getRange(key, 0, HEADER_BYTES)) {
            base = SegmentCodec.baseOf(head);
        } catch (ObjectNotFoundException e) {
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            base = baseOfWhole(key);
        }
        if (base >= id || base < 0) {
            throw new IllegalStateException("checkpoint " + key + " names base " + base + "; a base precedes it");
        }
        bases.put(id, base);
        return base;
    }

    /** Reads the whole object; one that is gone or unreadable ends its chain (readers skip it too). */
    private long baseOfWhole(String key) {
        try {
            return store.get(key).map(bytes -> SegmentCodec.baseOf(new ByteArrayInputStream(bytes))).orElse(0L);
        } catch (IllegalArgumentException e) {
            return 0;
        }
    }
}
