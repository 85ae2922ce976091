"""Several datasets (or versions) read as one, in exact proportions per epoch: :class:`Mix`."""

from __future__ import annotations

from typing import Any, List, Mapping, Optional, Sequence

from shardflow.reading.batchiter import BatchIterator, read_batches
from shardflow.reading.mix import Weight, apportion
from shardflow.reading.options import DEFAULT_SHUFFLE_BLOCK
from shardflow.reading.reader import SampleIterator, read_samples


class Mix:
    """Several datasets (or versions) read as one: each epoch takes exactly ``counts[i]`` samples of
    dataset ``i``, or ``weights`` apportioned over ``epoch_samples`` (default: all their samples),
    interleaved evenly (READING-RULES.md, "Mixing"). A dataset that gives more than it has cycles
    through its own epochs; one that gives less spreads an epoch of its own over several."""

    def __init__(self, datasets: Sequence[Any], weights: Optional[Sequence[Weight]] = None,
                 counts: Optional[Sequence[int]] = None, epoch_samples: Optional[int] = None):
        if not datasets:
            raise ValueError("a mix needs at least one dataset")
        if (weights is None) == (counts is None) and len(datasets) > 1:
            raise ValueError("give a mix either weights or counts")
        for given in (weights, counts):
            if given is not None and len(given) != len(datasets):
                raise ValueError(f"{len(datasets)} datasets but {len(given)} weights or counts")
        if counts is not None and (epoch_samples is not None or any(int(n) != n or n < 0 for n in counts)):
            raise ValueError(f"counts are whole numbers >= 0 and fix the epoch's length themselves: {counts}")
        self.datasets = list(datasets)
        self.weights, self.counts, self.epoch_samples = weights, counts, epoch_samples

    def __repr__(self):
        parts = ", ".join(f"{d.name}/{d.version}" for d in self.datasets)
        return f"Mix({parts}, weights={self.weights}, counts={self.counts}, epoch_samples={self.epoch_samples})"

    def counts_for(self, sizes: Sequence[int]) -> List[int]:
        if self.counts is not None:
            return [int(n) for n in self.counts]
        if self.weights is None:
            return list(sizes)  # one dataset, read whole
        return apportion(sum(sizes) if self.epoch_samples is None else self.epoch_samples, self.weights)

    def samples(self, *, seed: int = 0, epoch: int = 0, shuffle_shards: bool = True,
                shuffle_block: int = DEFAULT_SHUFFLE_BLOCK, rank: int = 0, world_size: int = 1,
                drop_last: bool = False, resume: Optional[Mapping[str, Any]] = None, **options) -> SampleIterator:
        """Rank ``rank``'s samples of mixed epoch ``epoch``, by the same rules as
        :meth:`shardflow.Dataset.samples` (same options; the state names every dataset)."""
        return read_samples(self, seed=seed, epoch=epoch, shuffle_shards=shuffle_shards, shuffle_block=shuffle_block,
                            rank=rank, world_size=world_size, drop_last=drop_last, resume=resume, **options)

    def batches(self, batch_size: int, *, seed: int = 0, epoch: int = 0, shuffle_shards: bool = True,
                shuffle_block: int = DEFAULT_SHUFFLE_BLOCK, rank: int = 0, world_size: int = 1,
                drop_last: bool = False, resume: Optional[Mapping[str, Any]] = None, **options) -> BatchIterator:
        """The fast path over the mix: :meth:`shardflow.Dataset.batches` (the datasets must have the same tensors)."""
        return read_batches(self, batch_size, seed=seed, epoch=epoch, shuffle_shards=shuffle_shards,
                            shuffle_block=shuffle_block, rank=rank, world_size=world_size, drop_last=drop_last,
                            resume=resume, **options)
