package io.shardflow.dataset.log;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;

/**
 * An append-only list whose prefixes can be handed out as immutable views in O(1): elements are
 * never changed once appended, and growing allocates a new array without touching the old one, so
 * a view of the first {@code n} elements stays valid forever. This is what makes
 * {@link CommitLog#latest()} cheap on a log of 100,000 shards: {@link Snapshot} keeps the view
 * instead of copying it.
 *
 * <p>Appending is not thread-safe (the owning {@link CommitLogState} is guarded by its CommitLog);
 * views are safe to share once published, since their array slots were written before the view
 * was created and are never written again.
 */
final class AppendOnlyList<T> {

    private Object[] elements = new Object[16];
    private int size;

    void add(T element) {
        if (size == elements.length) {
            elements = Arrays.copyOf(elements, elements.length * 2);
        }
        elements[size++] = element;
    }

    int size() {
        return size;
    }

    @SuppressWarnings("unchecked")
    T get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        return (T) elements[index];
    }

    /** The first {@code n} elements, immutable. */
    List<T> prefix(int n) {
        if (n < 0 || n > size) {
            throw new IndexOutOfBoundsException("prefix " + n + " of " + size);
        }
        return new View<>(elements, 0, n);
    }

    /** Elements {@code from} (inclusive) to {@code to} (exclusive), immutable. */
    List<T> range(int from, int to) {
        if (from < 0 || to > size || from > to) {
            throw new IndexOutOfBoundsException("range " + from + ".." + to + " of " + size);
        }
        return new View<>(elements, from, to);
    }

    /** An immutable window on an array whose slots in the window are never written again. */
    static final class View<T> extends AbstractList<T> implements RandomAccess {
        private final Object[] elements;
        private final int from;
        private final int to;

        private View(Object[] elements, int from, int to) {
            this.elements = elements;
            this.from = from;
            this.to = to;
        }

        @Override
        @SuppressWarnings("unchecked")
        public T get(int index) {
            if (index < 0 || index >= to - from) {
                throw new IndexOutOfBoundsException(index);
            }
            return (T) elements[from + index];
        }

        @Override
        public int size() {
            return to - from;
        }

        @Override
        public List<T> subList(int fromIndex, int toIndex) {
            if (fromIndex < 0 || toIndex > size() || fromIndex > toIndex) {
                throw new IndexOutOfBoundsException("subList " + fromIndex + ".." + toIndex + " of " + size());
            }
            return new View<>(elements, from + fromIndex, from + toIndex);
        }
    }
}
