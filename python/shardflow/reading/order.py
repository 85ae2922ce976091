"""Deterministic shard order, the split across readers, and the sample shuffle buffer.

The shard order is language-neutral, so a reader in Java (or anything with SHA-256) reproduces it:
sort the shards by ``sha256(f"{seed}:{epoch}:{shard_id}")`` as lowercase hex. Reader ``g`` of
``total`` (``g = rank * num_workers + worker_id``, ``total = world_size * num_workers``) takes the
shards at positions ``i`` with ``i % total == g``.
"""

from __future__ import annotations

import hashlib
from typing import Generic, Iterator, List, Optional, Sequence, TypeVar

import numpy as np

from shardflow.format.entries import ShardEntry

T = TypeVar("T")
_BLOCK = 1024


def order_key(seed: int, epoch: int, shard_id: str) -> str:
    return hashlib.sha256(f"{seed}:{epoch}:{shard_id}".encode("utf-8")).hexdigest()


def shard_order(shards: Sequence[ShardEntry], seed: int, epoch: int, shuffle: bool = True) -> List[ShardEntry]:
    """The shards in the order every reader uses for (seed, epoch); log order when ``shuffle`` is off."""
    if not shuffle:
        return list(shards)
    return sorted(shards, key=lambda s: order_key(seed, epoch, s.shard_id))


def split(ordered: Sequence[ShardEntry], g: int, total: int, offset: int = 0) -> List[ShardEntry]:
    """The shards of reader ``g``: positions ``offset + i`` with ``(offset + i) % total == g``."""
    if not 0 <= g < total:
        raise ValueError(f"reader {g} is not one of 0..{total - 1}")
    return [s for i, s in enumerate(ordered) if (offset + i) % total == g]


def check_seed(seed: int, epoch: int) -> None:
    for what, value in (("seed", seed), ("epoch", epoch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{what} must be an integer >= 0, got {value!r}")


def sample_rng(seed: int, epoch: int, g: int) -> np.random.Generator:
    """The generator of reader ``g``'s shuffle buffer for (seed, epoch)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, epoch, g])))


class ShuffleBuffer(Generic[T]):
    """A fixed-size buffer (as in webdataset): once full, each new item takes the place of a randomly
    chosen one, which comes out. ``size == 0`` passes items straight through.

    Deterministic for a given generator and sequence of calls, whatever the items are: resuming
    replays the same calls with cheap stand-ins, then swaps in the real samples (:meth:`replace`).
    """

    def __init__(self, size: int, rng: np.random.Generator):
        if size < 0:
            raise ValueError(f"shuffle buffer size must be >= 0, got {size}")
        self.size = size
        self.items: List[T] = []
        self._rng = rng
        self._draws: List[int] = []
        self._next = 0

    def push(self, item: T) -> Optional[T]:
        if self.size == 0:
            return item
        if len(self.items) < self.size:
            self.items.append(item)
            return None
        if self._next == len(self._draws):
            self._draws = self._rng.integers(0, self.size, _BLOCK).tolist()  # Python ints: cheap to index
            self._next = 0
        j = self._draws[self._next]
        self._next += 1
        out, self.items[j] = self.items[j], item
        return out

    def drain(self) -> Iterator[T]:
        """Empties the buffer in random order. Items still inside are in ``items`` at every step, so
        :meth:`replace` during the drain converts exactly the ones not out yet."""
        if not self.items:
            return
        order = self._rng.permutation(len(self.items))
        # Reversed, so each step pops from the end of the list.
        self.items = [self.items[j] for j in order[::-1]]
        while self.items:
            yield self.items.pop()

    def replace(self, convert) -> None:
        """Converts every buffered item in place (``convert`` gets and returns the whole list)."""
        self.items = convert(self.items)
