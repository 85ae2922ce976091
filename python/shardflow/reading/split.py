"""The exact split of what is left of an epoch across ranks, DataLoader workers and batches
(docs/READING-RULES.md, "Ranks, workers, batches").

The remainder of an epoch is positions ``[C, S)`` of its order (``C`` consumed so far, ``R = S - C``
left). Rank ``r`` of ``N`` takes remainder offsets ``r + N*i`` for ``i`` in ``[0, L)``, ``L`` the
same for every rank: ``ceil(R/N)`` (offsets past ``R`` repeat the order from ``C`` again, declared
padding) or, with ``drop_last``, ``floor(R/N)``. A rank's sequence is cut into batches of ``b``;
worker ``w`` of ``W`` makes batches ``j`` with ``j % W == w``. After ``k`` batches delivered in order
by every rank, the whole job has consumed exactly the positions ``[C, C + N*k*b)``: the resume state
is that one number, whatever ``N`` and ``W`` were.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np


@dataclass(frozen=True)
class RankShare:
    """Rank ``rank`` of ``world_size``'s part of the epoch positions ``[consumed, size)``."""

    size: int
    consumed: int
    rank: int
    world_size: int
    drop_last: bool = False

    def __post_init__(self):
        if self.world_size < 1 or not 0 <= self.rank < self.world_size:
            raise ValueError(f"rank {self.rank} is not one of 0..{self.world_size - 1}")
        if not 0 <= self.consumed <= self.size:
            raise ValueError(f"{self.consumed} samples consumed of an epoch of {self.size}")

    @property
    def remaining(self) -> int:
        return self.size - self.consumed

    @property
    def length(self) -> int:
        """L: samples this rank (and every other) yields."""
        r, n = self.remaining, self.world_size
        return r // n if self.drop_last else -(-r // n)

    def padding(self) -> int:
        """How many of this rank's samples repeat earlier ones of the epoch (0 with drop_last)."""
        return int(np.count_nonzero(self.rank + self.world_size * np.arange(self.length) >= self.remaining))

    def positions(self, start: int, stop: int) -> np.ndarray:
        """Epoch positions of this rank's samples ``start..stop-1`` (0-based in its sequence)."""
        stop = min(stop, self.length)
        i = np.arange(start, max(start, stop), dtype=np.int64)
        offsets = self.rank + self.world_size * i
        if self.remaining:
            offsets = np.where(offsets >= self.remaining, offsets % max(self.remaining, 1), offsets)
        return self.consumed + offsets

    def batch_count(self, batch_size: int) -> int:
        return -(-self.length // batch_size)

    def batch(self, j: int, batch_size: int) -> np.ndarray:
        """Epoch positions of this rank's batch ``j`` (the last one may be short, on every rank alike)."""
        return self.positions(j * batch_size, (j + 1) * batch_size)

    def consumed_after(self, batches: int, batch_size: int) -> int:
        """The epoch's consumed count once every rank has delivered ``batches`` batches of
        ``batch_size``: the prefix ``C + N*k*b``, or the whole epoch once the ranks are done."""
        if batches * batch_size >= self.length:
            return self.size
        return self.consumed + self.world_size * batches * batch_size


def worker_batches(batch_count: int, worker: int, num_workers: int) -> Iterator[int]:
    """The batches worker ``worker`` of ``num_workers`` makes, in order (0 workers: the main
    process makes them all). A DataLoader takes them round robin, so they arrive as 0, 1, 2, ..."""
    workers = max(num_workers, 1)
    if not 0 <= worker < workers:
        raise ValueError(f"worker {worker} is not one of 0..{workers - 1}")
    return iter(range(worker, batch_count, workers))
