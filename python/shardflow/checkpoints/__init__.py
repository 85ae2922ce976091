"""Training checkpoints beside the data (dataset/FORMAT.md, "Training checkpoints"): model,
optimizer and any other state, saved atomically under ``runs/<run>/step-<n>/`` in the datasets'
bucket, each tied to the dataset snapshots and the reader position it was trained on.

```python
from shardflow.checkpoints import Checkpoints

ckpt = Checkpoints("s3://shardflow")
ckpt.save("run-7", step, {"model": model.state_dict(), "optim": opt.state_dict()}, reader=loader)
restored = ckpt.resume("run-7", reader=loader)     # None for a new run; else the newest saved step
```

Not the commit log's checkpoints (``datasets/<d>/<v>/checkpoints/``), which only make opening a
snapshot fast: these are the trainer's.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, List, Mapping, Optional, Union

from shardflow.checkpoints import layout
from shardflow.checkpoints.checkpoint import Checkpoint
from shardflow.checkpoints.collective import Collective, SingleProcess, TorchCollective, default_collective
from shardflow.checkpoints.download import CheckpointCorruptError
from shardflow.checkpoints.index import CheckpointIndex
from shardflow.checkpoints.manifest import DatasetPin, Manifest, SavedFile
from shardflow.checkpoints.prune import PruneResult, prune
from shardflow.checkpoints.retention import RetentionPolicy
from shardflow.checkpoints.writer import (CheckpointExistsError, CheckpointSaveError, CheckpointWriter, Observer,
                                          TransferOptions)
from shardflow.errors import ShardflowError
from shardflow.storage.objectstore import ObjectStore
from shardflow.storage.store import S3Settings, open_store

__all__ = ["Checkpoint", "CheckpointCorruptError", "CheckpointExistsError", "CheckpointNotFoundError",
           "CheckpointSaveError", "Checkpoints", "Collective", "DatasetPin", "Manifest", "PruneResult",
           "RetentionPolicy", "SavedFile", "SingleProcess", "TorchCollective", "TransferOptions"]


class CheckpointNotFoundError(ShardflowError):
    """No manifest for that run and step: the step was never saved, did not finish, or was collected."""


class Checkpoints:
    """The training checkpoints of one bucket (``s3://bucket``, or ``file:///path`` for a local copy).

    ``part_size`` and ``parallelism`` bound memory: a file goes up (and comes down) in parts of
    ``part_size`` bytes, ``parallelism`` at a time. ``collective`` is how the ranks of a job meet
    (default: ``torch.distributed`` when it is initialised at save time, else one process).
    """

    def __init__(self, uri: Union[str, ObjectStore], s3: Union[None, ObjectStore, S3Settings, Mapping[str, str]] = None,
                 *, part_size: int = 16 << 20, parallelism: int = 4, collective: Optional[Collective] = None,
                 clock: Callable[[], float] = time.time, observer: Optional[Observer] = None,
                 spool_dir: Optional[str] = None):
        self.store = uri if isinstance(uri, ObjectStore) else open_store(uri, s3)
        self.options = TransferOptions(part_size, parallelism)
        self.index = CheckpointIndex(self.store)
        self._collective, self._clock, self._observer, self._spool_dir = collective, clock, observer, spool_dir

    def save(self, run: str, step: int, state_dicts: Mapping[str, Any], reader: Any = None, *,
             metadata: Optional[Mapping[str, Any]] = None, uneven: str = "error") -> Manifest:
        """Saves this rank's ``state_dicts`` (name -> a torch value, numpy array, bytes, a binary
        stream or a local file's path) as step ``step`` of ``run``; every rank of the job calls it
        together. ``reader``: this rank's ShardflowDataLoader (or its ``state_dict()``); the merged
        position goes into the manifest, with the dataset snapshots it reads. Returns the manifest
        once it is durable; raises :class:`CheckpointExistsError` if the step was already saved."""
        writer = CheckpointWriter(self.store, self._collective or default_collective(), self._clock, self.options,
                                  self._observer)
        return writer.save(run, step, state_dicts, reader, metadata, uneven)

    def load(self, run: str, step: int) -> Checkpoint:
        manifest = self.index.manifest(run, step)
        if manifest is None:
            raise CheckpointNotFoundError(f"run {run!r} has no saved step {step} "
                                          f"(saved: {[m.step for m in self.index.complete(run)]})")
        return Checkpoint(self.store, manifest, self.options, self._spool_dir)

    def latest(self, run: str) -> Optional[Checkpoint]:
        manifest = self.index.latest(run)
        return None if manifest is None else Checkpoint(self.store, manifest, self.options, self._spool_dir)

    def resume(self, run: str, reader: Any = None, allow_snapshot_change: bool = False) -> Optional[Checkpoint]:
        """The newest saved step of ``run`` (None if there is none), with ``reader`` (a
        ShardflowDataLoader) set to continue on exactly the samples the saved job had not seen.
        Then ``.load("model")`` etc. give the saved values."""
        restored = self.latest(run)
        if restored is not None and reader is not None:
            restored.restore_reader(reader, allow_snapshot_change)
        return restored

    def list(self, run: str) -> List[Manifest]:
        """Every saved step of ``run``, oldest first."""
        return list(self.index.complete(run))

    def runs(self) -> List[str]:
        return self.index.runs()

    def pin(self, run: str, step: int, note: str = "") -> bool:
        """Keeps the step through every prune and gc; False if it was pinned already."""
        self.load(run, step)
        return self.store.put_if_absent(layout.pin_key(run, step), json.dumps(
            {"run": run, "step": step, "note": note}).encode("utf-8"))

    def unpin(self, run: str, step: int) -> None:
        self.store.delete(layout.pin_key(run, step))

    def prune(self, run: str, keep_last: int = 3, keep_every: Optional[int] = None,
              dry_run: bool = False) -> PruneResult:
        """Deletes the saved steps that ``keep_last`` / ``keep_every`` / pins do not keep (the newest
        always stays). Call it from one rank."""
        return prune(self.index, run, RetentionPolicy(keep_last, keep_every), dry_run)
