"""Mixing several datasets (or versions) into one epoch order that meets exact per-epoch counts
(docs/READING-RULES.md, "Mixing").

Source ``i`` gives exactly ``n_i`` samples to each mixed epoch: given as counts, or apportioned from
weights over ``epoch_samples`` by largest remainder (exact rational arithmetic, ties to the lower
source index). The mixed order interleaves them smoothly: sample ``k`` of source ``i`` stands at the
key ``(2k+1) / (2 n_i)`` (an IEEE double division), sorted by (key, source index). Source ``i`` reads
its own stream: its epoch orders one after another, so mixed epoch ``E`` takes stream positions
``[E*n_i, (E+1)*n_i)``, cycling through its own epochs when up-sampled and spreading one of its
epochs over several mixed ones when down-sampled.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from shardflow.format.entries import ShardEntry
from shardflow.reading.order import EpochOrder

Weight = Union[int, float, Fraction]


def apportion(total: int, weights: Sequence[Weight]) -> List[int]:
    """``total`` split in proportion to ``weights`` (each > 0) by largest remainder: the exact quotas'
    floors, then one more to the largest remainders, ties to the lower index."""
    if total < 0:
        raise ValueError(f"epoch_samples must be >= 0, got {total}")
    exact = [Fraction(w) for w in weights]
    if not exact or any(w <= 0 for w in exact):
        raise ValueError(f"mixing weights must all be > 0, got {list(weights)}")
    whole = sum(exact)
    quotas = [total * w / whole for w in exact]
    counts = [q.numerator // q.denominator for q in quotas]
    by_remainder = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in by_remainder[:total - sum(counts)]:
        counts[i] += 1
    return counts


def interleave(counts: Sequence[int]) -> Tuple[np.ndarray, np.ndarray]:
    """(source, index within the source) of each position of the mixed epoch."""
    if any(n >= 1 << 52 for n in counts):
        raise ValueError("a source count must stay below 2**52 samples per epoch")
    keys = [(2 * np.arange(n, dtype=np.float64) + 1) / (2.0 * n) for n in counts]
    sources = [np.full(n, i, dtype=np.int64) for i, n in enumerate(counts)]
    indices = [np.arange(n, dtype=np.int64) for n in counts]
    if not keys:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    key, source, index = np.concatenate(keys), np.concatenate(sources), np.concatenate(indices)
    order = np.lexsort((source, key))  # by key, then by source
    return source[order], index[order]


@dataclass(frozen=True)
class MixSource:
    """One source of a mix, as the order needs it: its snapshot's shards and shuffle settings."""

    shards: Tuple[ShardEntry, ...]
    shuffle_shards: bool
    shuffle_block: int

    @property
    def size(self) -> int:
        return sum(s.sample_count for s in self.shards)


class MixedOrder:
    """Mixed epoch ``epoch``'s positions mapped to (source, shard, row). One source with
    ``counts == [its size]`` is the plain epoch order of one dataset."""

    def __init__(self, sources: Sequence[MixSource], counts: Sequence[int], seed: int, epoch: int):
        if len(sources) != len(counts):
            raise ValueError("one count per source")
        for i, (source, n) in enumerate(zip(sources, counts)):
            if n > 0 and source.size == 0:
                raise ValueError(f"mix source {i} has no samples but should give {n} per epoch")
        self.sources, self.counts, self.seed, self.epoch = list(sources), list(counts), seed, epoch
        self.size = sum(counts)
        # One source needs no interleave (and no arrays as long as the epoch): position k is its sample k.
        self._mixed = interleave(counts) if len(counts) > 1 else None
        self._orders: Dict[Tuple[int, int], EpochOrder] = {}

    def __len__(self) -> int:
        return self.size

    def source_position(self, source: int, index: int) -> Tuple[int, int]:
        """(source epoch, position in it) of the source's ``index``-th sample in this mixed epoch."""
        stream = self.epoch * self.counts[source] + index
        return divmod(stream, self.sources[source].size)

    def entries(self, positions: np.ndarray) -> List[Tuple[int, ShardEntry, int]]:
        """(source, shard, row) of each mixed position, in the order given."""
        out: List[Optional[Tuple[int, ShardEntry, int]]] = [None] * len(positions)
        positions = np.asarray(positions, dtype=np.int64)
        if positions.size and (positions.min() < 0 or positions.max() >= self.size):
            raise IndexError(f"positions outside the epoch's 0..{self.size - 1}")
        if self._mixed is None:
            sources, indices = np.zeros(len(positions), dtype=np.int64), positions
        else:
            sources, indices = self._mixed[0][positions], self._mixed[1][positions]
        for source in np.unique(sources):
            at = np.nonzero(sources == source)[0]
            stream = self.epoch * self.counts[source] + indices[at]
            epochs, offsets = np.divmod(stream, self.sources[source].size)
            for epoch in np.unique(epochs):
                part = epochs == epoch
                order = self._order(int(source), int(epoch))
                shard, row = order.locate(offsets[part])
                for k, s, r in zip(at[part], shard, row):
                    out[k] = (int(source), order.shards[s], int(r))
        return out  # type: ignore[return-value]

    def locate(self, positions: np.ndarray) -> Tuple[List[Tuple[int, ShardEntry]], np.ndarray, np.ndarray]:
        """The same as :meth:`entries` as arrays: the distinct ``(source, shard)`` the positions read,
        then for each position the index of its shard in that list and its row (no object per position)."""
        positions = np.asarray(positions, dtype=np.int64)
        if positions.size and (positions.min() < 0 or positions.max() >= self.size):
            raise IndexError(f"positions outside the epoch's 0..{self.size - 1}")
        if self._mixed is None:
            sources, indices = np.zeros(len(positions), dtype=np.int64), positions
        else:
            sources, indices = self._mixed[0][positions], self._mixed[1][positions]
        keys: List[Tuple[int, ShardEntry]] = []
        groups = np.empty(len(positions), dtype=np.int64)
        rows = np.empty(len(positions), dtype=np.int64)
        for source in np.unique(sources):
            at = np.flatnonzero(sources == source)
            epochs, offsets = np.divmod(self.epoch * self.counts[source] + indices[at], self.sources[source].size)
            for epoch in np.unique(epochs):
                part = at[epochs == epoch]
                order = self._order(int(source), int(epoch))
                shard, row = order.locate(offsets[epochs == epoch])
                used, inverse = np.unique(shard, return_inverse=True)
                groups[part] = len(keys) + inverse
                rows[part] = row
                keys += [(int(source), order.shards[s]) for s in used.tolist()]
        return keys, groups, rows

    def _order(self, source: int, epoch: int) -> EpochOrder:
        order = self._orders.get((source, epoch))
        if order is None:
            s = self.sources[source]
            order = EpochOrder(s.shards, self.seed, epoch, s.shuffle_shards, s.shuffle_block)
            self._orders[(source, epoch)] = order
        return order
