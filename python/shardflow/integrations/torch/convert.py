"""Types torch has no numpy bridge for, converted per sample: bfloat16 becomes ``torch.bfloat16``
(a view of the same bits); uint16 becomes int32, uint32 int64, uint64 int64 with the same bits; an
image bytes tensor, with ``decode_images``, a uint8 (H, W, C) tensor (needs Pillow)."""

from __future__ import annotations

from typing import List

import numpy as np
import torch

from shardflow.format.media import decode_image
from shardflow.format.spec import DatasetSpec, TensorSpec

#: unsigned types torch 1.13 cannot hold, widened to the next signed type (uint64: same bits as int64)
WIDENED = {"uint16": np.int32, "uint32": np.int64, "uint64": np.int64}


def tensors_to_convert(spec: DatasetSpec, decode_images: bool) -> List[TensorSpec]:
    return [t for t in spec.tensors if (t.encoding and decode_images) or t.dtype == "bfloat16" or t.dtype in WIDENED]


def convert_sample(sample, tensors: List[TensorSpec], decode_images: bool):
    """Converts these tensors of ``sample`` in place; returns it."""
    for t in tensors:
        value = sample.get(t.name)
        if t.encoding and decode_images:
            sample[t.name] = torch.from_numpy(decode_image(value))
        elif t.dtype == "bfloat16":
            sample[t.name] = torch.from_numpy(np.ascontiguousarray(value).view(np.int16)).view(torch.bfloat16)
        elif t.dtype in WIDENED:
            sample[t.name] = torch.from_numpy(np.asarray(value).astype(WIDENED[t.dtype]) if t.dtype != "uint64"
                                              else np.ascontiguousarray(value).view(np.int64))
    return sample
