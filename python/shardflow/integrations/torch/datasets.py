"""PyTorch's :class:`ShardflowIterableDataset`: one rank's share of each epoch, by the rules of
docs/READING-RULES.md (every rank the same count, any world size; elastic resume).

It yields whole batches when :class:`~shardflow.integrations.torch.loader.ShardflowDataLoader` sets
``batch_size`` (worker ``w`` of ``W`` makes the rank's batches ``j % W == w``, which the DataLoader
hands out as 0, 1, 2, ...), else single samples (each worker a 64-sample chunk in turn).
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple

import torch
from torch.utils.data import IterableDataset, get_worker_info

from shardflow.integrations.torch.convert import convert_sample, tensors_to_convert
from shardflow.integrations.torch.fastbatch import batch_to_torch, fast_path_fits
from shardflow.reading.fastpath import DEFAULT_THREADS, common_spec
from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD
from shardflow.reading.options import DEFAULT_SHUFFLE_BLOCK, StreamOptions
from shardflow.reading.plan import EpochPlan, as_mix
from shardflow.reading.reader import EpochReader

_SAMPLE_CHUNK = 64


def rank_and_world_size(rank: Optional[int] = None, world_size: Optional[int] = None) -> Tuple[int, int]:
    """Explicit values, else ``torch.distributed`` if initialised, else env ``RANK``/``WORLD_SIZE``, else 0/1."""
    if rank is None or world_size is None:
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            found = (torch.distributed.get_rank(), torch.distributed.get_world_size())
        else:
            found = (int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1)))
        rank = found[0] if rank is None else rank
        world_size = found[1] if world_size is None else world_size
    if not 0 <= rank < world_size:
        raise ValueError(f"rank {rank} is not one of 0..{world_size - 1}")
    return rank, world_size


def agree_with_rank_0(ids: List[int]) -> List[int]:
    """Every rank takes rank 0's snapshot ids (follow mode pins the same snapshots on all ranks)."""
    if torch.distributed.is_available() and torch.distributed.is_initialized() \
            and torch.distributed.get_world_size() > 1:
        box = [ids]
        torch.distributed.broadcast_object_list(box, src=0)
        return list(box[0])
    return ids


class ShardflowIterableDataset(IterableDataset):
    """The samples of a :class:`shardflow.Dataset`'s pinned snapshot (or of a :class:`shardflow.Mix`),
    for a DataLoader: a dict per sample of one numpy array per tensor plus ``sample_id``,
    ``device_id``, ``produced_at`` (and ``attributes`` if asked for).

    Types torch lacks are converted: bfloat16 becomes ``torch.bfloat16`` (a view of the same bits);
    uint16 becomes int32, uint32 int64, uint64 int64 with the same bits; with ``decode_images=True``
    an image bytes tensor becomes a uint8 (H, W, C) tensor (needs Pillow).

    Call :meth:`set_epoch` before each epoch. An epoch reads the snapshot the dataset is pinned to
    when it starts (rank 0's, broadcast when ``torch.distributed`` is initialised, so ranks that
    opened the dataset at different times still agree); ``follow=True`` re-pins to the newest at
    each epoch's start, and ``new_only=True`` then reads only the shards appended since the
    previous epoch's snapshot, waiting up to ``follow_timeout`` seconds (polling every
    ``poll_interval``) for some. Both need the epoch begun in the rank's process: through
    :class:`ShardflowDataLoader`, or iterating the dataset directly (a plain DataLoader's workers
    read the pinned snapshot).
    """

    def __init__(self, dataset: Any, *, seed: int = 0, shuffle_shards: bool = True,
                 shuffle_block: int = DEFAULT_SHUFFLE_BLOCK, drop_last: bool = False, rank: Optional[int] = None,
                 world_size: Optional[int] = None, follow: bool = False, new_only: bool = False,
                 poll_interval: float = 5.0, follow_timeout: Optional[float] = None, attributes: bool = False,
                 prefetch: int = DEFAULT_PREFETCH, range_size: int = DEFAULT_RANGE_SIZE,
                 range_threshold: int = DEFAULT_RANGE_THRESHOLD, decode_images: bool = True, fast_path: bool = True,
                 threads: int = DEFAULT_THREADS):
        super().__init__()
        self.dataset = dataset
        self.decode_images = decode_images
        self.threads = threads
        opts = StreamOptions(seed=seed, shuffle_shards=shuffle_shards, shuffle_block=shuffle_block,
                             drop_last=drop_last, follow=follow, new_only=new_only, poll_interval=poll_interval,
                             follow_timeout=follow_timeout, attributes=attributes, prefetch=prefetch,
                             range_size=range_size, range_threshold=range_threshold)
        self.reader = EpochReader(dataset, opts)
        self.spec = common_spec(as_mix(dataset).datasets)
        # whole batches straight from the shards' columns (fixed-shape specs, without attributes)
        self.fast_path = fast_path and fast_path_fits(self.spec) and not attributes
        if rank is not None or world_size is not None:
            rank_and_world_size(rank, world_size)  # fail early on a bad pair
        self._rank, self._world_size = rank, world_size
        self.batch_size: Optional[int] = None  # set by ShardflowDataLoader: then whole batches are yielded
        self._plan: Optional[EpochPlan] = None  # the epoch the loader began, for its workers
        self._shared_plan = None  # persistent workers: the loader's epoch, in shared memory

    @property
    def epoch(self) -> int:
        return self.reader.epoch

    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch of the next iteration. Another epoch forgets a loaded state; the same
        epoch keeps it, so resuming code may call it."""
        self.reader.set_epoch(epoch)

    def rank_and_world_size(self) -> Tuple[int, int]:
        return rank_and_world_size(self._rank, self._world_size)

    def begin(self) -> EpochPlan:
        """Pins the epoch about to be read in this (the rank's main) process."""
        rank, world_size = self.rank_and_world_size()
        return self.reader.begin(rank, world_size, self.batch_size or 1, agree_with_rank_0)

    # ---- iteration (runs in each DataLoader worker, or in the main process) -----------------

    def __iter__(self) -> Iterator[Any]:
        info = get_worker_info()
        plan, counting = self._plan, False
        if info is not None and self._shared_plan is not None:  # a persistent worker: this epoch's plan
            plan = self._shared_plan.plan(self.reader)
        if plan is None:
            # Not begun by ShardflowDataLoader: the main process begins (and counts) by itself; a worker
            # of a plain DataLoader reads the pinned snapshot (never re-pins: its siblings must agree).
            if info is None:
                plan, counting = self.begin(), True
            else:
                plan = self.reader.begin(*self.rank_and_world_size(), 1, pin_newest=False)
        worker, workers = (info.id, info.num_workers) if info is not None else (0, 0)
        return self._iterate(plan, worker, workers, counting)

    def _iterate(self, plan: EpochPlan, worker: int, workers: int, counting: bool) -> Iterator[Any]:
        rank, world_size = self.rank_and_world_size()
        if self.batch_size is not None and self.fast_path:
            for _, batch in self.reader.fast_batches(plan, rank, world_size, self.batch_size, worker, workers,
                                                     self.threads):
                if counting:
                    self.reader.delivered(batch.index + 1)
                yield batch_to_torch(batch, self.spec)
            return
        converted = tensors_to_convert(self.spec, self.decode_images)
        size = self.batch_size or _SAMPLE_CHUNK
        delivered = 0
        for _, samples in self.reader.batches(plan, rank, world_size, size, worker, workers):
            if converted:
                samples = [self._convert(s, converted) for s in samples]
            if self.batch_size is not None:
                delivered += 1
                if counting:
                    self.reader.delivered(delivered)
                yield samples
                continue
            for sample in samples:
                delivered += 1
                if counting:
                    self.reader.delivered(delivered)
                yield sample

    def _convert(self, sample, tensors):
        """Types torch has no numpy bridge for, and images decoded (see the class notes)."""
        return convert_sample(sample, tensors, self.decode_images)

    # ---- checkpointing -----------------------------------------------------------------------

    def state_dict(self) -> Dict[str, Any]:
        """Where the job is in the current epoch (docs/READING-RULES.md, "Resume state"): the same on
        every rank in step, and resumable on any number of ranks and workers."""
        return self.reader.state_dict()

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        """Resume point for the next iteration (call it before ``iter(loader)``): its epoch, its
        snapshots, and how much of the epoch was consumed. Any world size and worker count."""
        self.reader.load_state_dict(state, allow_snapshot_change)
