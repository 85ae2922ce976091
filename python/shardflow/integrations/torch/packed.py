"""A DataLoader worker's batch with all its fixed-size tensors in one block of shared memory.

Every tensor a worker returns crosses to the main process as its own shared-memory segment: a new
file, mapped and faulted in page by page, and a file descriptor passed over a socket. With 12 KB
samples that transport costs about as much CPU as the whole read in the worker (some 3 CPU-s per
GB each), much of it per tensor, and a batch of an image, a label and a timestamp makes three.
:func:`pack_samples` stacks them all into one block, so a batch costs one segment and one
descriptor; :meth:`PackedBatch.unpack` gives back the same dict of tensors, each a view of the
block (no copy), in the main process.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

import numpy as np
import torch
from torch.utils.data import get_worker_info

from shardflow.integrations.torch.collate import TORCH_DTYPES, collate_samples

__all__ = ["PackedBatch", "pack_samples"]

_ALIGN = 64
"""Each tensor starts at a multiple of this many bytes: aligned for every dtype (and cache lines)."""

Layout = List[Tuple[str, torch.dtype, Tuple[int, ...], int, int]]


class PackedBatch:
    """One block of bytes and where each tensor lies in it (name, dtype, shape, offset, bytes);
    ``lists`` holds the values that stay Python lists (strings). Picklable, and pinned as a whole
    by a DataLoader with ``pin_memory=True``."""

    def __init__(self, block: torch.Tensor, layout: Layout, lists: Dict[str, list], keys: Sequence[str]):
        self.block = block
        self.layout = layout
        self.lists = lists
        self.keys = list(keys)

    def pin_memory(self) -> "PackedBatch":
        return PackedBatch(self.block.pin_memory(), self.layout, self.lists, self.keys)

    def unpack(self) -> Dict[str, Any]:
        """The batch as :func:`~shardflow.integrations.torch.collate.collate_samples` makes it, its tensors
        views of the block."""
        tensors = {}
        for name, dtype, shape, offset, size in self.layout:
            if size == 0:
                tensors[name] = torch.empty(shape, dtype=dtype)
            else:
                tensors[name] = self.block[offset:offset + size].view(dtype).view(shape)
        return {k: tensors[k] if k in tensors else self.lists[k] for k in self.keys}


def pack_samples(samples: Sequence[dict]):
    """:func:`~shardflow.integrations.torch.collate.collate_samples`'s batch; in a DataLoader worker, when every value
    is a numpy array of a dtype torch holds, an ``int`` or a ``str``, as a :class:`PackedBatch`."""
    if get_worker_info() is None or not isinstance(samples, (list, tuple)) or not samples:
        return collate_samples(samples)
    packed = pack(samples)
    return collate_samples(samples) if packed is None else packed


def pack(samples: Sequence[dict]):
    """The :class:`PackedBatch` of these samples, in shared memory; None if a value does not fit
    (another type, or arrays whose shapes differ: the caller's collate then says what is wrong)."""
    first = samples[0]
    columns: Dict[str, Any] = {}
    lists: Dict[str, list] = {}
    plan = []
    offset = 0
    for name, value in first.items():
        if type(value) is int:
            column: Any = np.array([s[name] for s in samples], dtype=np.int64)
            dtype, shape = column.dtype, column.shape
        elif isinstance(value, np.ndarray) and value.dtype in TORCH_DTYPES and value.dtype.isnative:
            column = [s[name] for s in samples]
            if any(not isinstance(v, np.ndarray) or v.shape != value.shape or v.dtype != value.dtype for v in column):
                return None
            dtype, shape = value.dtype, (len(samples),) + value.shape
        elif isinstance(value, str):
            lists[name] = [s[name] for s in samples]
            continue
        else:
            return None
        size = int(np.prod(shape)) * dtype.itemsize
        columns[name] = column
        plan.append((name, dtype, shape, offset, size))
        offset += -(-size // _ALIGN) * _ALIGN
    storage = torch.empty(0, dtype=torch.uint8).storage()._new_shared(max(offset, 1))
    block = torch.empty(0, dtype=torch.uint8).new(storage)
    memory = block.numpy()
    for name, dtype, shape, start, size in plan:
        out = memory[start:start + size].view(dtype).reshape(shape)
        column = columns[name]
        if isinstance(column, list):
            np.stack(column, out=out)
        else:
            out[...] = column
    layout = [(name, TORCH_DTYPES[dtype], shape, start, size) for name, dtype, shape, start, size in plan]
    return PackedBatch(block, layout, lists, list(first))
