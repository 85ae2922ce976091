package io.shardflow.reader;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What a read takes from each of its sources per epoch (docs/READING-RULES.md, section 4): one
 * dataset read whole, or several datasets (or versions) mixed with exact per-epoch {@code counts},
 * or {@code weights} apportioned over {@code epochSamples} (default: all their samples) by largest
 * remainder. A source that gives more than it has cycles through its own epochs; one that gives
 * less spreads an epoch of its own over several mixed ones.
 *
 * @param weights      one per source, each finite and > 0; or null
 * @param counts       one per source, each >= 0; or null
 * @param epochSamples with weights: the mixed epoch's length T; null = the sum of the sources' sizes
 */
public record Mix(List<ReadSource> sources, List<Double> weights, List<Long> counts, Long epochSamples) {

    public Mix {
        sources = List.copyOf(Objects.requireNonNull(sources, "sources"));
        if (sources.isEmpty()) {
            throw new IllegalArgumentException("a mix needs at least one dataset");
        }
        if (weights != null && counts != null || weights == null && counts == null && sources.size() > 1) {
            throw new IllegalArgumentException("give a mix either weights or counts, got weights " + weights
                    + " and counts " + counts);
        }
        weights = weights == null ? null : List.copyOf(weights);
        counts = counts == null ? null : List.copyOf(counts);
        for (List<?> given : new List<?>[] {weights, counts}) {
            if (given != null && given.size() != sources.size()) {
                throw new IllegalArgumentException(sources.size() + " datasets but " + given.size() + " weights or counts");
            }
        }
        if (weights != null && weights.stream().anyMatch(w -> !(w > 0) || w.isInfinite())) {
            throw new IllegalArgumentException("mixing weights must all be finite and > 0, got " + weights);
        }
        if (counts != null && (epochSamples != null || counts.stream().anyMatch(n -> n < 0))) {
            throw new IllegalArgumentException("counts are whole numbers >= 0 and fix the epoch's length themselves: "
                    + counts + (epochSamples != null ? " with epochSamples " + epochSamples : ""));
        }
        if (epochSamples != null && epochSamples < 0) {
            throw new IllegalArgumentException("epochSamples must be >= 0, got " + epochSamples);
        }
    }

    /** One dataset, read whole each epoch. */
    public static Mix of(ReadSource source) {
        return new Mix(List.of(source), null, null, null);
    }

    /** Sources in proportion to {@code weights}, over all their samples (see {@link #withEpochSamples}). */
    public static Mix weighted(List<ReadSource> sources, double... weights) {
        List<Double> boxed = new ArrayList<>();
        for (double w : weights) {
            boxed.add(w);
        }
        return new Mix(sources, boxed, null, null);
    }

    /** Exactly {@code counts[i]} samples of source {@code i} per epoch. */
    public static Mix counted(List<ReadSource> sources, long... counts) {
        List<Long> boxed = new ArrayList<>();
        for (long n : counts) {
            boxed.add(n);
        }
        return new Mix(sources, null, boxed, null);
    }

    /** A weighted mix's epoch length. */
    public Mix withEpochSamples(long samples) {
        if (weights == null) {
            throw new IllegalArgumentException("epochSamples applies to a weighted mix; counts fix the length themselves");
        }
        return new Mix(sources, weights, counts, samples);
    }

    /** The same mix with source {@code i} replaced. */
    Mix withSource(int i, ReadSource source) {
        List<ReadSource> changed = new ArrayList<>(sources);
        changed.set(i, source);
        return new Mix(changed, weights, counts, epochSamples);
    }

    /** Samples each source gives one epoch, given how many each pinned snapshot holds. */
    List<Long> countsFor(List<Long> sizes) {
        if (counts != null) {
            return counts;
        }
        if (weights == null) {
            return List.copyOf(sizes); // one dataset, read whole
        }
        long total = epochSamples != null ? epochSamples : sizes.stream().mapToLong(Long::longValue).sum();
        return MixedOrder.apportion(total, weights);
    }
}
