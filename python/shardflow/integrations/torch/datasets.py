"""PyTorch access: :class:`ShardflowIterableDataset` and :class:`ShardflowDataLoader`.

Importing this module imports torch; ``import shardflow`` alone does not.

Every sample of an epoch is read exactly once across ``world_size`` ranks x ``num_workers``
DataLoader workers: reader ``g = rank * num_workers + worker_id`` of ``total = world_size *
num_workers`` takes the shards at positions ``i % total == g`` of the (seed, epoch) shard order.

Resume: :meth:`ShardflowIterableDataset.state_dict` records the epoch, seed, shuffle settings,
the pinned snapshot, ``total`` and, per reader ``g``, how many samples of its stream had been
*delivered to the training loop*. ``load_state_dict`` before the next ``iter(loader)`` makes every
reader replay its deterministic stream and skip that many (skipped shards are not downloaded), so
the epoch continues with exactly the samples not yet delivered. Counting delivered samples needs
the batches: :class:`ShardflowDataLoader` (a DataLoader) does it, with any number of workers.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info
from torch.utils.data.dataloader import default_convert

from shardflow.format.media import decode_image
from shardflow.integrations.torch.collate import collate_samples, ragged_collate
from shardflow.integrations.torch.packed import PackedBatch, pack_samples
from shardflow.reading.dataset import Dataset
from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD
from shardflow.reading.stream import ResumePoint, StreamOptions, make_state, merge_states, parse_state

__all__ = ["ShardflowIterableDataset", "ShardflowDataLoader", "collate_samples", "merge_states", "rank_and_world_size",
           "ragged_collate"]

#: unsigned types torch 1.13 cannot hold, widened to the next signed type (uint64: same bits as int64)
_WIDENED = {"uint16": np.int32, "uint32": np.int64, "uint64": np.int64}


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


class ShardflowIterableDataset(IterableDataset):
    """The samples of a :class:`shardflow.Dataset`'s pinned snapshot, for a DataLoader.

    Each sample is a dict: one numpy array per tensor (the label under its tensor name), plus
    ``sample_id``, ``device_id``, ``produced_at`` (and ``attributes`` if asked for); the
    DataLoader's default collate turns them into batched tensors and lists of strings.

    Types torch lacks are converted on the way: bfloat16 tensors (stored as uint16 bits) become
    ``torch.bfloat16`` through a view of the same bits; uint16 becomes int32, uint32 int64, and
    uint64 int64 with the same bits (values from 2**63 read negative). String tensors are ``str``,
    bytes tensors ``bytes``, and with ``decode_images=True`` (default) a bytes tensor declared as
    an image is decoded to a uint8 (H, W, C) tensor (needs Pillow). Tensors with free dimensions
    have each sample's own shape: batch them with :class:`ShardflowDataLoader`'s ``ragged``.

    Call :meth:`set_epoch` before each epoch for a new order. Each iteration reads the snapshot
    ``dataset`` is pinned to when it starts: ``dataset.refresh()`` between epochs takes in new
    snapshots. ``follow=True`` also keeps going after it within the epoch: the log is polled every
    ``poll_interval`` seconds and shards of new snapshots are streamed, until ``follow_timeout``
    seconds pass without a new snapshot (None: forever).
    """

    def __init__(self, dataset: Dataset, *, seed: int = 0, shuffle_shards: bool = True, shuffle_buffer: int = 1000,
                 rank: Optional[int] = None, world_size: Optional[int] = None, follow: bool = False,
                 poll_interval: float = 5.0, follow_timeout: Optional[float] = None, attributes: bool = False,
                 prefetch: int = DEFAULT_PREFETCH, range_size: int = DEFAULT_RANGE_SIZE,
                 range_threshold: int = DEFAULT_RANGE_THRESHOLD, decode_images: bool = True):
        super().__init__()
        self.dataset = dataset
        self.decode_images = decode_images
        self.options = StreamOptions(seed=seed, epoch=0, shuffle_shards=shuffle_shards,
                                     shuffle_buffer=shuffle_buffer, follow=follow, poll_interval=poll_interval,
                                     follow_timeout=follow_timeout, attributes=attributes, prefetch=prefetch,
                                     range_size=range_size, range_threshold=range_threshold)
        if rank is not None or world_size is not None:
            rank_and_world_size(rank, world_size)  # fail early on a bad pair
        self._rank, self._world_size = rank, world_size
        self._snapshot_id = dataset.snapshot_id  # of the current (or last) iteration
        self._resume: Optional[ResumePoint] = None  # to skip in the next iteration
        self._delivered: Dict[int, int] = {}  # this epoch, per reader: samples handed to the trainer
        self._total: Optional[int] = None

    @property
    def epoch(self) -> int:
        return self.options.epoch

    def set_epoch(self, epoch: int) -> None:
        """Selects the epoch of the next iteration. A different epoch forgets the progress made in
        (or loaded for) the current one; the same epoch keeps it, so resuming code may call it."""
        if epoch != self.options.epoch:
            self.options = self.options.with_epoch(epoch)
            self._resume = None
            self._delivered = {}
            self._total = None

    # ---- iteration (runs in each DataLoader worker, or in the main process) -----------------

    def _reader(self) -> Tuple[int, int]:
        rank, world_size = rank_and_world_size(self._rank, self._world_size)
        info = get_worker_info()
        workers, worker = (info.num_workers, info.id) if info is not None else (1, 0)
        return rank * workers + worker, world_size * workers

    def __iter__(self):
        g, total = self._reader()
        resume = self._resume
        skip = resume.skip_for(g, total) if resume is not None else 0
        in_main = get_worker_info() is None
        if in_main:
            self._begin(resume)
        # Looked up once: most specs need no conversion, and then no per-sample loop runs at all.
        converted = [t for t in self.dataset.spec.tensors
                     if (t.encoding and self.decode_images) or t.dtype == "bfloat16" or t.dtype in _WIDENED]
        for sample in self.dataset._stream(self.options, g, total, self.dataset.snapshot_id, skip):
            if in_main:
                self.observe([sample.position])
            yield self._convert(sample, converted) if converted else sample

    def _convert(self, sample, tensors):
        """Types torch has no numpy bridge for, and images decoded (see the class notes)."""
        for t in tensors:
            value = sample.get(t.name)
            if t.encoding and self.decode_images:
                sample[t.name] = torch.from_numpy(decode_image(value))
            elif t.dtype == "bfloat16":
                sample[t.name] = torch.from_numpy(np.ascontiguousarray(value).view(np.int16)).view(torch.bfloat16)
            elif t.dtype in _WIDENED:
                sample[t.name] = torch.from_numpy(np.asarray(value).astype(_WIDENED[t.dtype]) if t.dtype != "uint64"
                                                  else np.ascontiguousarray(value).view(np.int64))
        return sample

    def _begin(self, resume: Optional[ResumePoint]) -> None:
        """A new iteration starts: the loaded resume point becomes the progress, and is used up."""
        self._resume = None
        self._snapshot_id = self.dataset.snapshot_id
        self._delivered = dict(resume.yielded) if resume is not None else {}
        self._total = resume.total if resume is not None else None

    def observe(self, positions: Sequence[Tuple[int, int, int]]) -> None:
        """Records samples as delivered to the trainer (``Sample.position`` of each). Idempotent.
        :class:`ShardflowDataLoader` calls it for every batch it returns."""
        for g, total, index in positions:
            self._total = total
            if index + 1 > self._delivered.get(g, 0):
                self._delivered[g] = index + 1

    # ---- checkpointing -----------------------------------------------------------------------

    def state_dict(self) -> Dict[str, Any]:
        """Where this rank's readers are in the current epoch (see the module doc). In multi-rank
        training each rank knows only its own readers: save one state per rank, or combine them
        with :func:`merge_states` (e.g. after ``torch.distributed.all_gather_object``)."""
        if self._resume is not None:  # loaded, not yet iterated: hand back what was loaded
            yielded, total = self._resume.yielded, self._resume.total
        else:
            yielded, total = self._delivered, self._total
        return make_state(self.dataset.name, self.dataset.version, self._snapshot_id, self.options, total, yielded)

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Resume point for the next iteration: its epoch, its snapshot, and per reader the samples
        to skip. Call it before ``iter(loader)``; the world size times workers must be the same."""
        point = parse_state(state, self.dataset.name, self.dataset.version, self.options)
        self.options = self.options.with_epoch(point.epoch)
        if point.snapshot_id != self.dataset.snapshot_id:
            self.dataset = self.dataset.at(point.snapshot_id)  # re-pinned: the replay needs that exact shard set
        self._snapshot_id = point.snapshot_id
        self._resume = point
        self._delivered = dict(point.yielded)
        self._total = point.total


class _PositionCollate:
    """Collates with the user's function and passes the samples' positions alongside the batch."""

    def __init__(self, collate: Callable):
        self.collate = collate

    def __call__(self, samples):
        if isinstance(samples, dict):  # batch_size=None: one sample at a time
            return [getattr(samples, "position", None)], self.collate(samples)
        return [getattr(s, "position", None) for s in samples], self.collate(samples)


class ShardflowDataLoader(DataLoader):
    """A DataLoader over a :class:`ShardflowIterableDataset` that counts the samples it delivers,
    so ``dataset.state_dict()`` is exact at any point of the loop, with any ``num_workers``.

    Batches are exactly what ``collate_fn`` makes of the samples; by default :func:`collate_samples`
    (what torch's default collate makes, stacking numpy tensors with one copy; from a worker, a
    batch's tensors travel in one block of shared memory, see :mod:`shardflow.integrations.torch.packed`, and arrive
    as views of it), or, when the spec has
    string, bytes, image or free-shape tensors, :func:`ragged_collate` with ``ragged`` = ``"pad"``
    (default: zero-padded to the batch's largest shape, with the true shapes under ``<name>_shape``)
    or ``"list"`` (a list of tensors of their own shapes).
    ``persistent_workers`` is refused: workers that outlive an epoch would not see ``set_epoch``.
    """

    def __init__(self, dataset: ShardflowIterableDataset, batch_size: Optional[int] = 1, *,
                 collate_fn: Optional[Callable] = None, ragged: str = "pad", **kwargs):
        if not isinstance(dataset, ShardflowIterableDataset):
            raise TypeError(f"ShardflowDataLoader reads a ShardflowIterableDataset, not {type(dataset).__name__}")
        if kwargs.get("persistent_workers"):
            raise ValueError("persistent_workers=True is not supported: workers kept across epochs would not see "
                             "set_epoch() or load_state_dict()")
        for name in ("sampler", "batch_sampler", "shuffle"):
            if kwargs.get(name):
                raise ValueError(f"{name} does not apply: order and shuffling are the dataset's (seed, shuffle_buffer)")
        if ragged not in ("pad", "list"):
            raise ValueError(f"ragged must be 'pad' or 'list', not {ragged!r}")
        if collate_fn is None:
            variable = any(t.variable for t in dataset.dataset.spec.tensors)
            if batch_size is None:
                collate_fn = default_convert
            else:
                # pack_samples: collate_samples' batch, in a worker one shared block instead of one per tensor
                collate_fn = (lambda samples: ragged_collate(samples, ragged)) if variable else pack_samples
        super().__init__(dataset, batch_size=batch_size, collate_fn=_PositionCollate(collate_fn), **kwargs)

    def __iter__(self):
        dataset: ShardflowIterableDataset = self.dataset
        resume = dataset._resume
        iterator = super().__iter__()  # starts the workers; each takes its copy of the resume point
        if self.num_workers > 0:
            dataset._begin(resume)
        # With num_workers=0 the dataset iterates in this process and begins by itself.
        for positions, batch in iterator:
            dataset.observe([p for p in positions if p is not None])
            yield batch.unpack() if isinstance(batch, PackedBatch) else batch
