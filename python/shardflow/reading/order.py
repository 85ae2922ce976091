"""The global epoch order of one dataset: every sample of a pinned snapshot once, the same for every
topology and every language (docs/READING-RULES.md, "Epoch order").

1. Shards sorted by ``sha256(f"{seed}:{epoch}:{shard_id}")`` as lowercase hex (log order when
   ``shuffle_shards`` is off).
2. Their rows concatenated in that order, rows in file order.
3. Permuted within fixed blocks of ``shuffle_block`` positions (none when it is 0 or 1): a block's
   offsets sorted by a SplitMix64 key of (seed, epoch, block, offset), ties by offset.

Position ``p`` is found without reading the dataset: a block's permutation is computed on demand.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import List, Sequence, Tuple

import numpy as np

from shardflow.format.entries import ShardEntry

GOLDEN_GAMMA = 0x9E3779B97F4A7C15
MAX_SEED = (1 << 63) - 1
_MASK = (1 << 64) - 1
_KEPT_BLOCKS = 8


def order_key(seed: int, epoch: int, shard_id: str) -> str:
    return hashlib.sha256(f"{seed}:{epoch}:{shard_id}".encode("utf-8")).hexdigest()


def shard_order(shards: Sequence[ShardEntry], seed: int, epoch: int, shuffle: bool = True) -> List[ShardEntry]:
    """The shards in the order every reader uses for (seed, epoch); log order when ``shuffle`` is off."""
    if not shuffle:
        return list(shards)
    return sorted(shards, key=lambda s: order_key(seed, epoch, s.shard_id))


def check_seed(seed: int, epoch: int) -> None:
    for what, value in (("seed", seed), ("epoch", epoch)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
            raise ValueError(f"{what} must be an integer in 0..2**63-1, got {value!r}")



def mix64(z: int) -> int:
    """SplitMix64's finaliser on one unsigned 64-bit value (Java: ``SplittableRandom.mix64``)."""
    z &= _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _mix64_array(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # uint64 products wrap modulo 2**64, as the rule says
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def block_key(seed: int, epoch: int, block: int) -> int:
    """The seed of block ``block``'s keys: ``mix64(mix64(mix64(seed) ^ epoch) ^ block)``."""
    return mix64(mix64(mix64(seed) ^ epoch) ^ block)


def offset_keys(seed: int, epoch: int, block: int, size: int) -> np.ndarray:
    """Key of offset ``j`` in the block: ``mix64(block_key + (j + 1) * GOLDEN_GAMMA)`` modulo 2**64,
    the ``j+1``-th output of a SplitMix64 generator seeded with the block key."""
    steps = np.arange(1, size + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix64_array(np.uint64(block_key(seed, epoch, block)) + steps * np.uint64(GOLDEN_GAMMA))


def block_permutation(seed: int, epoch: int, block: int, size: int) -> np.ndarray:
    """Offsets ``0..size-1`` sorted by their key, ties by offset (stable sort)."""
    return np.argsort(offset_keys(seed, epoch, block, size), kind="stable")


class EpochOrder:
    """Positions ``0..S-1`` of one epoch mapped to (shard index, row) of the ordered shards."""

    def __init__(self, shards: Sequence[ShardEntry], seed: int, epoch: int, shuffle_shards: bool = True,
                 shuffle_block: int = 0):
        if shuffle_block < 0:
            raise ValueError(f"shuffle_block must be >= 0 samples, got {shuffle_block}")
        self.seed, self.epoch, self.shuffle_block = seed, epoch, shuffle_block
        self.shards: List[ShardEntry] = shard_order(shards, seed, epoch, shuffle_shards)
        counts = np.array([s.sample_count for s in self.shards], dtype=np.int64)
        self.starts = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        self.size = int(self.starts[-1])
        self._blocks: "OrderedDict[int, np.ndarray]" = OrderedDict()

    def __len__(self) -> int:
        return self.size

    def source_positions(self, positions: np.ndarray) -> np.ndarray:
        """Where each epoch position's sample stands in the concatenated rows (before the block shuffle)."""
        positions = np.asarray(positions, dtype=np.int64)
        if positions.size and (positions.min() < 0 or positions.max() >= self.size):
            raise IndexError(f"positions outside the epoch's 0..{self.size - 1}")
        if self.shuffle_block <= 1:
            return positions
        size = self.shuffle_block
        blocks, offsets = np.divmod(positions, size)
        out = np.empty_like(positions)
        for block in np.unique(blocks):
            mask = blocks == block
            out[mask] = block * size + self._permutation(int(block))[offsets[mask]]
        return out

    def locate(self, positions: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(index into :attr:`shards`, row in that shard) of each epoch position."""
        source = self.source_positions(positions)
        shard = np.searchsorted(self.starts, source, side="right") - 1
        return shard, source - self.starts[shard]

    def _permutation(self, block: int) -> np.ndarray:
        perm = self._blocks.get(block)
        if perm is None:
            length = min(self.shuffle_block, self.size - block * self.shuffle_block)
            perm = block_permutation(self.seed, self.epoch, block, length)
            self._blocks[block] = perm
            if len(self._blocks) > _KEPT_BLOCKS:
                self._blocks.popitem(last=False)
        else:
            self._blocks.move_to_end(block)
        return perm
