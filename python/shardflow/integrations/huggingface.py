"""Hugging Face: :func:`hf_iterable_dataset`, a ``datasets.IterableDataset`` of one rank's samples of
each epoch, whose ``state_dict()`` / ``load_state_dict()`` carry the reading rules' resume state
(docs/READING-RULES.md): a resume reads exactly the samples not yet taken, on any number of ranks,
without reading through the ones before (a generator-made IterableDataset skips by re-reading).
Importing this module imports ``datasets`` (``pip install 'shardflow[hf]'``; state needs
``datasets`` >= 2.18).

The samples are read batch by batch on the fast path and handed out one by one as dicts (the
per-example form ``datasets`` works in): fixed tensors as numpy arrays, strings as ``str``, bytes as
``bytes``, free-shape tensors as arrays of their own shape, plus ``sample_id``, ``device_id``,
``produced_at``. ``.map``, ``.batch``, ``.with_format("torch"|"numpy"|"jax")`` keep the state, as
for any ``datasets`` source. The order, split and padding are shardflow's: ``.shuffle`` would add
a buffer shuffle of its own on top (and its state), and ``split_dataset_by_node`` does not apply
(give ``rank`` and ``world_size``).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Optional, Tuple

import datasets
from datasets.iterable_dataset import _BaseExamplesIterable

from shardflow.reading.batchiter import BatchReader
from shardflow.reading.fastpath import DEFAULT_THREADS

__all__ = ["ShardflowExamples", "hf_iterable_dataset"]

_READ_BATCH = 64


class ShardflowExamples(_BaseExamplesIterable):
    """The examples source of :func:`hf_iterable_dataset` (one shard for ``datasets``: the split
    across ranks and DataLoader workers is shardflow's own)."""

    def __init__(self, reader: BatchReader, epoch: int):
        super().__init__()
        self.reader = reader
        self.epoch = epoch

    def _init_state_dict(self) -> dict:
        self._state_dict = {"type": type(self).__name__, "read_state": None}
        return self._state_dict

    def load_state_dict(self, state_dict: dict) -> dict:
        if self._state_dict is None:
            self._init_state_dict()
        self._state_dict.update(state_dict)  # in place: the dataset's state dict holds this one
        return self._state_dict

    def __iter__(self) -> Iterator[Tuple[str, Dict[str, Any]]]:
        saved = (self._state_dict or {}).get("read_state")
        if saved is not None:
            self.reader.load_state_dict(saved)
            self.epoch = int(saved["epoch"])
        else:
            self.reader.set_epoch(self.epoch)
        if self._state_dict is not None:
            self._state_dict["read_state"] = _Lazy(self.reader)
        delivered = 0
        for batch in self.reader.batches(count=False, unit=1):
            for k in range(len(batch)):
                example = batch.sample(k)
                delivered += 1
                self.reader.delivered(delivered)  # as datasets' own sources: counted as it is handed out
                yield example["sample_id"], example

    def shuffle_data_sources(self, generator) -> "ShardflowExamples":
        return self  # the order is the reading rules' (seed, epoch), not datasets' generator

    def shard_data_sources(self, num_shards: int, index: int, contiguous=True) -> "ShardflowExamples":
        if num_shards == 1:
            return self
        raise ValueError("a shardflow source is split by rank and world_size (hf_iterable_dataset(..., rank=, "
                         "world_size=)), not by datasets' shards")

    @property
    def num_shards(self) -> int:
        return 1


class _Lazy(dict):
    """The reader's state, computed only when ``datasets`` copies the state dict (not per example)."""

    def __init__(self, reader: BatchReader):
        super().__init__()
        self._reader = reader

    def __deepcopy__(self, memo):
        return self._reader.state_dict()

    def __getitem__(self, key):
        return self._reader.state_dict()[key]


def hf_iterable_dataset(read: Any, *, rank: int = 0, world_size: int = 1, epoch: int = 0,
                        threads: int = DEFAULT_THREADS, **options) -> datasets.IterableDataset:
    """``read`` (a :class:`shardflow.Dataset` or :class:`shardflow.Mix`) as a ``datasets.IterableDataset``
    of rank ``rank``'s samples of epoch ``epoch`` (``set_epoch`` on the result changes it).
    ``options`` are those of :meth:`shardflow.Dataset.samples` (``seed``, ``shuffle_block`` ...)."""
    reader = BatchReader(read, options.pop("read_batch", _READ_BATCH), rank=rank, world_size=world_size,
                         threads=threads, **options)
    return ShardflowHFDataset(ShardflowExamples(reader, epoch))


class ShardflowHFDataset(datasets.IterableDataset):
    """A ``datasets.IterableDataset`` whose ``set_epoch`` also selects shardflow's epoch."""

    def set_epoch(self, epoch: int) -> None:
        super().set_epoch(epoch)
        source = self._ex_iterable
        if isinstance(source, ShardflowExamples):
            source.epoch = epoch
            if self._state_dict is not None and isinstance(self._state_dict.get("examples_iterable"), dict):
                self._state_dict["examples_iterable"]["read_state"] = None
