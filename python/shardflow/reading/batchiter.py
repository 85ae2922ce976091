"""Whole batches of one rank's epoch as contiguous numpy arrays (the fast path), with the same
resume state as the per-sample :class:`~shardflow.reading.reader.SampleIterator`: framework
adapters (TensorFlow, JAX, Hugging Face, PyTorch) are built on it."""

from __future__ import annotations

from typing import Any, Dict, Iterator, Mapping, Optional

from shardflow.format.gather import Allocate, allocate_numpy
from shardflow.reading.batch import Batch
from shardflow.reading.fastpath import DEFAULT_THREADS
from shardflow.reading.options import StreamOptions
from shardflow.reading.reader import EpochReader


def read_batches(read: Any, batch_size: int, *, rank: int = 0, world_size: int = 1,
                 resume: Optional[Mapping[str, Any]] = None, allow_snapshot_change: bool = False,
                 threads: int = DEFAULT_THREADS, allocate: Allocate = allocate_numpy, **options) -> "BatchIterator":
    """One epoch of ``read`` (a dataset or a mix) for ``rank``, batch by batch (``options``: those
    of :class:`~shardflow.reading.options.StreamOptions`)."""
    return BatchIterator(EpochReader(read, StreamOptions(**options)), batch_size, rank, world_size, resume,
                         allow_snapshot_change, threads, allocate)


class BatchIterator:
    """Batches of ``batch_size`` of one rank in one epoch (the last may be shorter, on every rank
    alike). ``state_dict()`` after ``k`` batches resumes the whole job (every rank in step) exactly
    after them, on any number of ranks and with any batch size (docs/READING-RULES.md)."""

    def __init__(self, reader: EpochReader, batch_size: int, rank: int, world_size: int,
                 resume: Optional[Mapping[str, Any]] = None, allow_snapshot_change: bool = False,
                 threads: int = DEFAULT_THREADS, allocate: Allocate = allocate_numpy):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        if not isinstance(world_size, int) or world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not one of 0..{world_size - 1}")
        if resume is not None:
            reader.load_state_dict(resume, allow_snapshot_change)
        self.reader, self.batch_size, self.rank, self.world_size = reader, batch_size, rank, world_size
        self.threads, self.allocate = threads, allocate
        self._batches = self._iterate()

    def _iterate(self) -> Iterator[Batch]:
        plan = self.reader.begin(self.rank, self.world_size, self.batch_size)
        delivered = 0
        for _, batch in self.reader.fast_batches(plan, self.rank, self.world_size, self.batch_size,
                                                 threads=self.threads, allocate=self.allocate):
            delivered += 1
            self.reader.delivered(delivered)
            yield batch

    def __iter__(self):
        return self

    def __next__(self) -> Batch:
        return next(self._batches)

    def close(self) -> None:
        self._batches.close()

    def state_dict(self) -> Dict[str, Any]:
        return self.reader.state_dict()
