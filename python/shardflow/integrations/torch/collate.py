"""Batching samples into tensors: :func:`collate_samples` (fixed shapes, one copy per tensor) and
:func:`ragged_collate` (shapes that differ between samples). Importing this module imports torch."""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.utils.data import get_worker_info
from torch.utils.data.dataloader import default_collate

__all__ = ["collate_samples", "ragged_collate"]


TORCH_DTYPES = {np.dtype(n): t for n, t in (
    ("bool", torch.bool), ("uint8", torch.uint8), ("int8", torch.int8), ("int16", torch.int16),
    ("int32", torch.int32), ("int64", torch.int64), ("float16", torch.float16), ("float32", torch.float32),
    ("float64", torch.float64))}


def _stack_arrays(batch, *, collate_fn_map=None):
    """Stacks a batch of numpy arrays with one copy, straight into shared memory in a DataLoader
    worker (as torch's own collate does for tensors), without a tensor per sample first."""
    elem = batch[0]
    if elem.dtype.kind in "OSUV" or not elem.dtype.isnative:
        return _default_numpy_collate(batch, collate_fn_map=collate_fn_map)
    dtype = TORCH_DTYPES.get(elem.dtype)
    if dtype is None:
        return _default_numpy_collate(batch, collate_fn_map=collate_fn_map)
    shape = (len(batch),) + elem.shape
    if get_worker_info() is not None:
        numel = math.prod(shape)
        storage = torch.empty(0, dtype=dtype).storage()._new_shared(numel)
        out = torch.empty(0, dtype=dtype).new(storage).resize_(*shape)
    else:
        out = torch.empty(shape, dtype=dtype)
    np.stack(batch, out=out.numpy())
    return out


try:  # torch >= 1.13: the collate of numpy arrays can be replaced on its own
    from torch.utils.data._utils.collate import collate as _collate
    from torch.utils.data._utils.collate import collate_numpy_array_fn as _default_numpy_collate
    from torch.utils.data._utils.collate import default_collate_fn_map as _default_map

    _SAMPLE_COLLATE_MAP = {**_default_map, np.ndarray: _stack_arrays}

    def collate_samples(batch):
        """torch's default collate, with numpy tensors stacked with one copy (:func:`_stack_arrays`):
        the same batch, faster. ShardflowDataLoader's default."""
        return _collate(batch, collate_fn_map=_SAMPLE_COLLATE_MAP)
except ImportError:  # older torch: its default collate as it is
    collate_samples = default_collate


def ragged_collate(samples, ragged: str = "pad"):
    """Batches samples whose tensors may differ in shape. Equal shapes stack as default_collate
    does; differing ones are zero-padded to the largest size in each dimension, with a
    ``<name>_shape`` int64 tensor (B, rank) of the true shapes (``ragged="pad"``), or kept as a
    list (``ragged="list"``). ``str`` and ``bytes`` values stay lists."""
    batch = {}
    for key in samples[0]:
        values = [s[key] for s in samples]
        first = values[0]
        if isinstance(first, (str, bytes, dict)) or not hasattr(first, "shape"):
            batch[key] = default_collate(values) if not isinstance(first, (bytes, dict)) else values
            continue
        tensors = [v if isinstance(v, torch.Tensor) else torch.as_tensor(np.asarray(v)) for v in values]
        shapes = [tuple(t.shape) for t in tensors]
        if all(shape == shapes[0] for shape in shapes):
            batch[key] = torch.stack(tensors)
        elif ragged == "list":
            batch[key] = tensors
        else:
            size = [max(dims) for dims in zip(*shapes)]
            padded = tensors[0].new_zeros([len(tensors)] + size)
            for i, t in enumerate(tensors):
                padded[(i,) + tuple(slice(0, d) for d in t.shape)] = t
            batch[key] = padded
            batch[key + "_shape"] = torch.tensor(shapes, dtype=torch.int64)
    return batch
