"""One batch as the fast path hands it out: contiguous arrays, no Python object per sample.

:class:`BatchBuilder` fills a :class:`Batch` shard by shard (:mod:`shardflow.format.gather`): each
fixed tensor one ``(B, *shape)`` array of its dtype (bfloat16 as its uint16 bits, bool as bool),
each string, bytes or free-shape tensor one :class:`~shardflow.format.gather.Ragged`, ``sample_id``
and ``device_id`` arrays of ``str``, ``produced_at`` int64. Sample ``k`` of the batch holds exactly
what the per-sample reader gives for the same position (``batch.sample(k)`` builds that dict).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from shardflow.format.gather import Allocate, Ragged, RaggedGather, allocate_numpy, strings_out
from shardflow.format.spec import DatasetSpec

__all__ = ["Batch", "BatchBuilder", "Ragged"]


class Batch(dict):
    """``{tensor: array (B, ...) or Ragged, ..., "sample_id": str array, "device_id": str array,
    "produced_at": int64 array[, "attributes": list of dicts]}``. ``index`` is the batch's number
    ``j`` in its rank's epoch; ``position`` (epoch, consumed at the epoch's start, j)."""

    __slots__ = ("index", "position")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.index: int = 0
        self.position: Optional[Tuple[int, ...]] = None

    def __len__(self) -> int:  # the batch's sample count, not its key count
        return len(dict.__getitem__(self, "sample_id"))

    def keys_count(self) -> int:
        return dict.__len__(self)

    def sample(self, k: int) -> Dict[str, Any]:
        """Sample ``k`` as the per-sample reader gives it (tensors as views of the batch's arrays)."""
        out: Dict[str, Any] = {}
        for name, value in self.items():
            if isinstance(value, (Ragged, list)):
                out[name] = value[k]
            elif name in ("sample_id", "device_id"):
                out[name] = str(value[k])
            elif name == "produced_at":
                out[name] = int(value[k])
            else:
                out[name] = value[k, ...]  # a 0-d array for a scalar tensor, as the per-sample reader gives
        return out

    def __reduce__(self):
        return (_make_batch, (dict(self), self.index, self.position))


def _make_batch(data, index, position):
    b = Batch(data)
    b.index, b.position = index, position
    return b


class BatchBuilder:
    """Collects one batch of ``size`` samples from the shards holding them (call :meth:`add` once
    per shard with the batch slots its rows go to), then :meth:`finish`."""

    def __init__(self, spec: DatasetSpec, size: int, attributes: bool = False,
                 allocate: Allocate = allocate_numpy):
        self.size = size
        self.attributes = attributes
        self.allocate = allocate
        self.fixed: Dict[str, np.ndarray] = {}
        self.ragged: Dict[str, RaggedGather] = {}
        self.order: List[str] = []
        for t in spec.tensors:
            self.order.append(t.name)
            if t.variable:
                rank = None if t.dtype in ("string", "bytes") else len(t.shape)
                self.ragged[t.name] = RaggedGather(t.dtype, np.dtype(t.numpy_dtype), rank, size)
            else:
                self.fixed[t.name] = allocate((size,) + tuple(t.shape), np.dtype(t.numpy_dtype))
        self.ids: List[tuple] = []
        self.devices: List[tuple] = []
        self.produced = np.empty(size, dtype=np.int64)
        self.attrs: List[tuple] = []

    def add(self, shard, slots: np.ndarray, rows: np.ndarray) -> None:
        """Rows ``rows`` of an opened shard (:class:`~shardflow.format.rows.ShardRows`) into ``slots``."""
        for name, column in shard.tensors.items():
            if name in self.fixed:
                out = self.fixed[name]
                if len(slots) == self.size and _is_range(slots):
                    np.take(column, rows, axis=0, out=out)  # one copy, no scatter
                else:
                    out[slots] = column[rows]
            else:
                self.ragged[name].add(slots, rows, column.values, column.offsets, column.shapes)
        self.ids.append((slots, shard.sample_ids[rows]))
        self.devices.append((slots, shard.device_ids[rows]))
        self.produced[slots] = shard.produced_at[rows]
        if self.attributes:
            self.attrs.append((slots, shard.attributes[rows]))

    def finish(self) -> Batch:
        batch = Batch()
        for name in self.order:
            batch[name] = self.fixed[name] if name in self.fixed else self.ragged[name].finish(self.allocate)
        batch["sample_id"] = strings_out(self.ids, self.size)
        batch["device_id"] = strings_out(self.devices, self.size)
        batch["produced_at"] = self.produced
        if self.attributes:
            texts = strings_out(self.attrs, self.size).tolist()
            batch["attributes"] = [json.loads(s) if s else {} for s in texts]
        return batch


def _is_range(slots: np.ndarray) -> bool:
    return bool(slots[0] == 0 and np.all(np.diff(slots) == 1)) if len(slots) else True


def group_rows(groups: np.ndarray) -> List[Tuple[int, np.ndarray]]:
    """``(group, slots)`` for each group id present, slots in batch order within a group."""
    order = np.argsort(groups, kind="stable")
    ordered = groups[order]
    bounds = [0] + (np.flatnonzero(np.diff(ordered)) + 1).tolist() + [len(order)]
    return [(int(ordered[a]), order[a:b]) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
