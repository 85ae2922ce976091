package io.shardflow.reader;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * A seeded sample shuffle buffer (webdataset style). While it holds fewer than {@code capacity}
 * items, an offered item is kept; once full, each offered item replaces a uniformly chosen one,
 * which comes out. Draining takes uniformly chosen items until it is empty. Capacity 0 passes items
 * straight through.
 *
 * <p>Which slot is taken depends only on the random generator and the number of items, never on
 * the items: a buffer of positions driven by an identically seeded generator makes exactly the same
 * choices. That is how a resumed reader rebuilds the buffer it stopped with without reading every
 * sample again ({@link #map}).
 */
final class ShuffleBuffer<T> {

    private final int capacity;
    private final SplittableRandom random;
    private final List<T> slots;

    ShuffleBuffer(int capacity, SplittableRandom random) {
        this(capacity, random, new ArrayList<>(Math.min(capacity, 1 << 16)));
    }

    private ShuffleBuffer(int capacity, SplittableRandom random, List<T> slots) {
        if (capacity < 0) {
            throw new IllegalArgumentException("shuffle buffer capacity must be >= 0, got " + capacity);
        }
        this.capacity = capacity;
        this.random = random;
        this.slots = slots;
    }

    /** Offers an item; returns the item that comes out, or null while the buffer is filling. */
    T offer(T item) {
        if (capacity == 0) {
            return item;
        }
        if (slots.size() < capacity) {
            slots.add(item);
            return null;
        }
        int slot = random.nextInt(capacity);
        T out = slots.get(slot);
        slots.set(slot, item);
        return out;
    }

    /** Takes one item at random once input has ended; null when empty. */
    T drain() {
        if (slots.isEmpty()) {
            return null;
        }
        int slot = random.nextInt(slots.size());
        int last = slots.size() - 1;
        T out = slots.get(slot);
        slots.set(slot, slots.get(last));
        slots.remove(last);
        return out;
    }

    int size() {
        return slots.size();
    }

    /** The items held, slot by slot. */
    List<T> contents() {
        return List.copyOf(slots);
    }

    /** The same buffer (same slots, same generator, continuing) holding {@code f(item)} in each slot. */
    <U> ShuffleBuffer<U> map(Function<T, U> f) {
        List<U> mapped = new ArrayList<>(Math.max(slots.size(), Math.min(capacity, 1 << 16)));
        for (T item : slots) {
            mapped.add(f.apply(item));
        }
        return new ShuffleBuffer<>(capacity, random, mapped);
    }
}
