"""The fast path under PyTorch: a whole batch of a spec with fixed-shape tensors only turned from the
reader's contiguous arrays (:class:`~shardflow.reading.batch.Batch`) into the dict
:func:`~shardflow.integrations.torch.collate.collate_samples` makes of the same samples, without a
per-sample dict: tensors share the batch's memory (one copy into shared memory in a worker, as one
:class:`~shardflow.integrations.torch.packed.PackedBatch` block)."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np
import torch
from torch.utils.data import get_worker_info

from shardflow.format.spec import DatasetSpec
from shardflow.integrations.torch.collate import TORCH_DTYPES
from shardflow.integrations.torch.convert import WIDENED
from shardflow.integrations.torch.packed import _ALIGN, PackedBatch
from shardflow.reading.batch import Batch


def fast_path_fits(spec: DatasetSpec) -> bool:
    """Specs whose every tensor has a fixed shape (variable ones go through the per-sample collate)."""
    return not any(t.variable for t in spec.tensors)


def _columns(batch: Batch, spec: DatasetSpec) -> Dict[str, np.ndarray]:
    """The batch's arrays in the dtypes torch holds: bfloat16 as its int16 bits (viewed back later),
    uint16/uint32 widened, uint64 as int64 with the same bits."""
    out: Dict[str, np.ndarray] = {}
    for t in spec.tensors:
        value = batch[t.name]
        if t.dtype == "bfloat16":
            value = value.view(np.int16)
        elif t.dtype == "uint64":
            value = value.view(np.int64)
        elif t.dtype in WIDENED:
            value = value.astype(WIDENED[t.dtype])
        out[t.name] = value
    out["produced_at"] = batch["produced_at"]
    return out


def batch_to_torch(batch: Batch, spec: DatasetSpec) -> Any:
    """The batch as collate_samples would make it; in a DataLoader worker a PackedBatch (one block)."""
    columns = _columns(batch, spec)
    lists = {"sample_id": batch["sample_id"].tolist(), "device_id": batch["device_id"].tolist()}
    keys = [t.name for t in spec.tensors] + ["sample_id", "device_id", "produced_at"]
    bf16 = {t.name for t in spec.tensors if t.dtype == "bfloat16"}
    if get_worker_info() is None:
        out: Dict[str, Any] = {}
        for key in keys:
            if key in lists:
                out[key] = lists[key]
            else:
                tensor = torch.from_numpy(columns[key])
                out[key] = tensor.view(torch.bfloat16) if key in bf16 else tensor
        return out
    layout, offset = [], 0
    for key, value in columns.items():
        layout.append((key, value, offset, value.nbytes))
        offset += -(-value.nbytes // _ALIGN) * _ALIGN
    storage = torch.empty(0, dtype=torch.uint8).storage()._new_shared(max(offset, 1))
    block = torch.empty(0, dtype=torch.uint8).new(storage)
    memory = block.numpy()
    plan = []
    for key, value, start, size in layout:
        memory[start:start + size].view(value.dtype).reshape(value.shape)[...] = value
        dtype = torch.bfloat16 if key in bf16 else TORCH_DTYPES[value.dtype]
        plan.append((key, dtype, value.shape, start, size))
    return PackedBatch(block, plan, lists, keys)
