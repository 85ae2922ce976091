"""Epoch after epoch of one read (a dataset or a :class:`~shardflow.reading.mixing.Mix`), for any
framework: which snapshots each epoch pins, where a resumed epoch starts, and the resume state as
batches are delivered. Framework adapters (PyTorch today) wrap it; it imports none of them.

The process that drives training (a rank's main process) calls :meth:`EpochReader.begin` at the
start of each epoch; the plan it returns is what every worker of that rank reads from
(:meth:`EpochReader.batches`), so workers never pin snapshots of their own.
"""

from __future__ import annotations

import copy
import time
from dataclasses import replace
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from shardflow.format.gather import Allocate, allocate_numpy
from shardflow.reading.batch import Batch
from shardflow.reading.batches import RowReader, reader_batches
from shardflow.reading.fastpath import DEFAULT_THREADS, ShardPool, common_spec, fast_batches
from shardflow.reading.options import StreamOptions
from shardflow.reading.plan import EpochPlan, as_mix, check_pins, resume_epoch, start_epoch
from shardflow.reading.resume import ReadState
from shardflow.reading.sample import Sample

Agree = Callable[[List[int]], List[int]]
"""Makes every rank use rank 0's list of snapshot ids (identity for one process)."""


class EpochReader:
    def __init__(self, read: Any, opts: StreamOptions, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        self.mix = copy.copy(as_mix(read))
        self.mix.datasets = list(self.mix.datasets)  # follow re-pins this reader's, not the caller's list
        self.options = opts
        self.clock, self.sleep = clock, sleep
        self.plan: Optional[EpochPlan] = None
        self._loaded: Optional[Tuple[ReadState, bool]] = None  # a resume state for the next begin()
        self._previous: Optional[List[int]] = None  # snapshots the last epoch read (new_only)
        self._unit: Tuple[int, int, int] = (0, 1, 1)  # rank, world size, samples per delivered unit
        self._delivered = 0

    @property
    def epoch(self) -> int:
        return self.options.epoch

    def set_epoch(self, epoch: int) -> None:
        """The epoch of the next :meth:`begin`. Another epoch forgets a loaded state; the same keeps it."""
        if epoch != self.options.epoch:
            if self.plan is not None:
                self._previous = [p.snapshot_id for p in self.plan.state.sources]
            self.options = self.options.with_epoch(epoch)
            self._loaded = None
            self.plan = None

    def begin(self, rank: int, world_size: int, unit: int, agree: Agree = lambda ids: ids,
              pin_newest: bool = True) -> EpochPlan:
        """Pins the epoch about to be read (a loaded state's, else a fresh one) and starts counting
        what is delivered, in units of ``unit`` samples (the batch size; 1 for single samples).
        ``pin_newest=False`` keeps the pinned snapshots even in follow mode (a DataLoader worker
        beginning by itself must read what its siblings read)."""
        if self._loaded is not None:
            state, allow = self._loaded
            self._loaded = None
            self.plan = resume_epoch(self.mix, self.options, state, allow)
        else:
            if self.options.follow and pin_newest:
                self._pin_newest(agree)
            else:  # ranks that opened their datasets at different times must still read one snapshot
                self._repin(agree([d.snapshot_id for d in self.mix.datasets]))
            since = self._previous if self.options.new_only else None
            self.plan = start_epoch(self.mix, self.options, since)
        self._unit = (rank, world_size, unit)
        self._delivered = 0
        return self.plan

    def _pin_newest(self, agree: Agree) -> None:
        """Follow mode: every dataset re-pinned to its newest snapshot; with ``new_only``, waits (up
        to ``follow_timeout``) until one has something the previous epoch did not read."""
        started = self.clock()
        while True:
            ids = agree([d.log.latest_id() for d in self.mix.datasets])
            if not self.options.new_only or self._previous is None or ids != self._previous:
                break
            waited = self.clock() - started
            if self.options.follow_timeout is not None and waited >= self.options.follow_timeout:
                break  # nothing new: the epoch reads nothing
            left = None if self.options.follow_timeout is None else self.options.follow_timeout - waited
            self.sleep(self.options.poll_interval if left is None else max(0.0, min(self.options.poll_interval, left)))
        self._repin(ids)

    def _repin(self, ids: Sequence[int]) -> None:
        self.mix.datasets = [d if d.snapshot_id == i else d.at(i) for d, i in zip(self.mix.datasets, ids)]

    def batches(self, plan: EpochPlan, rank: int, world_size: int, batch_size: int, worker: int = 0,
                num_workers: int = 0) -> Iterator[Tuple[int, List[Sample]]]:
        """``(j, samples)`` of batch ``j`` of ``rank``'s share that worker ``worker`` makes."""
        share = plan.share(rank, world_size)
        return reader_batches(plan.order, share, batch_size, worker, num_workers,
                              RowReader(plan.datasets, self.options))

    def fast_batches(self, plan: EpochPlan, rank: int, world_size: int, batch_size: int, worker: int = 0,
                     num_workers: int = 0, threads: int = DEFAULT_THREADS,
                     allocate: Allocate = allocate_numpy) -> Iterator[Tuple[int, Batch]]:
        """``(j, batch)`` of the same batches as :meth:`batches`, each as contiguous arrays (the fast path)."""
        share = plan.share(rank, world_size)
        pool = ShardPool(plan.datasets, self.options)
        return fast_batches(plan.order, share, batch_size, worker, num_workers, pool, common_spec(plan.datasets),
                            threads, self.options.attributes, allocate)

    def delivered(self, units: int) -> None:
        """Records how many units (batches, or samples) of the epoch this rank has delivered so far."""
        self._delivered = max(self._delivered, units)

    def state_dict(self) -> Dict[str, Any]:
        if self._loaded is not None:  # loaded, not yet iterated: hand back what was loaded
            return self._loaded[0].to_json()
        if self.plan is None:  # nothing read yet in this epoch: it starts from 0 on what is pinned now
            return start_epoch(self.mix, self.options, self._previous if self.options.new_only else None
                               ).state_at(0)
        rank, world_size, unit = self._unit
        return self.plan.state_at(self.plan.share(rank, world_size).consumed_after(self._delivered, unit))

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        """Resume point for the next :meth:`begin`: its epoch and snapshots, and the consumed count."""
        parsed = ReadState.from_json(state)
        parsed.check_settings(self.options.seed, [(d.name, d.version, self.options.shuffle_shards,
                                                   self.options.shuffle_block) for d in self.mix.datasets])
        check_pins(self.mix, parsed, allow_snapshot_change)
        self.options = replace(self.options, epoch=parsed.epoch)
        self._previous = [p.snapshot_id for p in parsed.sources]  # what the epoch after it is new against
        self._loaded = (parsed, allow_snapshot_change)
        self.plan = None


def read_samples(read: Any, *, rank: int = 0, world_size: int = 1, resume: Optional[Mapping[str, Any]] = None,
                 allow_snapshot_change: bool = False, **options) -> "SampleIterator":
    """One epoch of ``read`` (a dataset or a mix) for ``rank``, sample by sample (``options``: those
    of :class:`~shardflow.reading.options.StreamOptions`)."""
    return SampleIterator(EpochReader(read, StreamOptions(**options)), rank, world_size, resume, allow_snapshot_change)


class SampleIterator:
    """Samples of one rank in one epoch; ``state_dict()`` at any point resumes the whole job exactly
    after the samples delivered so far (every rank in step), on any number of ranks."""

    def __init__(self, reader: EpochReader, rank: int, world_size: int,
                 resume: Optional[Mapping[str, Any]] = None, allow_snapshot_change: bool = False):
        if not isinstance(world_size, int) or world_size < 1 or not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not one of 0..{world_size - 1}")
        if resume is not None:
            reader.load_state_dict(resume, allow_snapshot_change)
        self.reader, self.rank, self.world_size = reader, rank, world_size
        self._samples = self._iterate()

    def _iterate(self, chunk: int = 64) -> Iterator[Sample]:
        plan = self.reader.begin(self.rank, self.world_size, 1)
        delivered = 0
        for _, samples in self.reader.batches(plan, self.rank, self.world_size, chunk):
            for sample in samples:
                delivered += 1
                self.reader.delivered(delivered)
                yield sample

    def __iter__(self):
        return self

    def __next__(self) -> Sample:
        return next(self._samples)

    def close(self) -> None:
        self._samples.close()

    def state_dict(self) -> Dict[str, Any]:
        return self.reader.state_dict()
