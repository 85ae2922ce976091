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


class BatchReader:
    """Epoch after epoch of one rank's batches (the fast path), for framework adapters: call
    :meth:`set_epoch` before each epoch and iterate; :meth:`delivered` records how many batches
    the training loop has taken (adapters whose framework reads ahead call it as batches reach the
    loop; :meth:`batches` with ``count=True`` counts as they are handed out). ``state_dict()`` is
    the reading rules' resume state (docs/READING-RULES.md): any world size, batch size, framework."""

    def __init__(self, read: Any, batch_size: int, *, rank: int = 0, world_size: int = 1,
                 threads: int = DEFAULT_THREADS, allocate: Allocate = allocate_numpy, **options):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        if not isinstance(world_size, int) or world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not one of 0..{world_size - 1}")
        self.reader = EpochReader(read, StreamOptions(**options))
        self.batch_size, self.rank, self.world_size = batch_size, rank, world_size
        self.threads, self.allocate = threads, allocate

    @property
    def epoch(self) -> int:
        return self.reader.epoch

    def set_epoch(self, epoch: int) -> None:
        self.reader.set_epoch(epoch)

    def batches(self, count: bool = True, unit: Optional[int] = None) -> Iterator[Batch]:
        """This rank's batches of the current epoch (a loaded state's rest of it, if one was loaded).
        :meth:`delivered` then counts in units of ``unit`` samples (default: batches)."""
        plan = self.reader.begin(self.rank, self.world_size, unit or self.batch_size)
        delivered = 0
        for _, batch in self.reader.fast_batches(plan, self.rank, self.world_size, self.batch_size,
                                                 threads=self.threads, allocate=self.allocate):
            if count:
                delivered += 1
                self.reader.delivered(delivered)
            yield batch

    def __iter__(self) -> Iterator[Batch]:
        return self.batches()

    def delivered(self, batches: int) -> None:
        self.reader.delivered(batches)

    def state_dict(self) -> Dict[str, Any]:
        return self.reader.state_dict()

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        """Resume point for the next iteration: the state's epoch, snapshots and consumed count."""
        self.reader.load_state_dict(state, allow_snapshot_change)
