"""The epoch a :class:`~shardflow.integrations.torch.loader.ShardflowDataLoader` begins, handed to
persistent DataLoader workers: they were started with an earlier copy of the dataset, so the
loader writes the epoch's resume state (docs/READING-RULES.md: snapshots, seed, epoch, consumed)
into shared memory, and each worker rebuilds the same plan from it when its next epoch starts."""

from __future__ import annotations

import json
from typing import Any, Mapping

import numpy as np
import torch

from shardflow.reading.plan import EpochPlan, resume_epoch
from shardflow.reading.resume import ReadState

_BYTES = 1 << 16
"""A state is a few hundred bytes per source."""


class SharedPlan:
    def __init__(self):
        self.block = torch.zeros(_BYTES, dtype=torch.uint8).share_memory_()

    def write(self, state: Mapping[str, Any]) -> None:
        data = json.dumps(dict(state)).encode("utf-8")
        if len(data) + 8 > _BYTES:
            raise ValueError(f"a read state of {len(data)} bytes does not fit the workers' {_BYTES}-byte block")
        memory = self.block.numpy()
        memory[8:8 + len(data)] = np.frombuffer(data, dtype=np.uint8)
        memory[:8] = np.frombuffer(len(data).to_bytes(8, "little"), dtype=np.uint8)

    def plan(self, reader) -> EpochPlan:
        memory = self.block.numpy()
        size = int.from_bytes(memory[:8].tobytes(), "little")
        if size == 0:
            raise RuntimeError("a persistent worker started before its loader began an epoch")
        state = ReadState.from_json(json.loads(memory[8:8 + size].tobytes()))
        return resume_epoch(reader.mix, reader.options, state)
