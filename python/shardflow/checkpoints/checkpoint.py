"""A saved step, as ``load`` and ``resume`` return it: its manifest, and its files on demand
(downloaded, verified, decoded), and the reader position to continue from."""

from __future__ import annotations

import logging
import os
import tempfile
from typing import Any, Dict, List, Optional, Tuple

from shardflow.checkpoints.download import download_verified, verify_stored
from shardflow.checkpoints.manifest import DatasetPin, Manifest
from shardflow.checkpoints.torchload import LayoutMismatch, load_direct
from shardflow.checkpoints.values import decode
from shardflow.checkpoints.writer import TransferOptions
from shardflow.storage.objectstore import ObjectStore

log = logging.getLogger(__name__)


class Checkpoint:
    def __init__(self, store: ObjectStore, manifest: Manifest, options: TransferOptions,
                 spool_dir: Optional[str] = None):
        self.store, self.manifest, self.options = store, manifest, options
        self.spool_dir = spool_dir

    def __repr__(self):
        return (f"Checkpoint({self.run} step {self.step}: {len(self.manifest.files)} files, {self.manifest.bytes} "
                f"bytes, saved {self.manifest.saved_at})")

    @property
    def run(self) -> str:
        return self.manifest.run

    @property
    def step(self) -> int:
        return self.manifest.step

    @property
    def reader_state(self) -> Optional[Dict[str, Any]]:
        """The merged reader state: resumable on any number of ranks and workers."""
        return self.manifest.reader_state

    @property
    def datasets(self) -> Tuple[DatasetPin, ...]:
        return self.manifest.datasets

    @property
    def ranks(self) -> List[int]:
        """Ranks that saved files."""
        return sorted(r.rank for r in self.manifest.ranks if r.files)

    def names(self, rank: int = 0) -> List[str]:
        return [f.name for r in self.manifest.ranks if r.rank == rank for f in r.files]

    def load(self, name: str, rank: int = 0, map_location: Any = None) -> Any:
        """The value rank ``rank`` saved under ``name`` (rank 0 by default: state that DDP keeps the
        same on every rank is saved once, by rank 0), verified against the manifest's SHA-256. A
        torch file comes down in parallel ranges straight into its tensors' memory
        (:mod:`~shardflow.checkpoints.torchload`); anything else (and a torch file laid out by plain
        ``torch.save``) into a temporary file first, then torch.load, np.load or its bytes."""
        saved = self.manifest.file(name, rank)
        if saved.kind == "torch":
            try:
                return load_direct(self.store, saved, self.options.part_size, self.options.parallelism, map_location)
            except LayoutMismatch as e:
                log.info("%s: %s; loading it through a temporary file", saved.key, e)
        fd, path = tempfile.mkstemp(prefix=".shardflow-ckpt-", dir=self.spool_dir)
        os.close(fd)
        try:
            download_verified(self.store, saved, path, self.options.part_size, self.options.parallelism)
            return decode(saved.kind, path, map_location)
        finally:
            if os.path.exists(path):
                os.unlink(path)

    def download(self, name: str, path: str, rank: int = 0) -> str:
        """The file as it was stored, at ``path``, verified."""
        return download_verified(self.store, self.manifest.file(name, rank), os.fspath(path),
                                 self.options.part_size, self.options.parallelism)

    def restore_reader(self, reader: Any, allow_snapshot_change: bool = False) -> None:
        """Loads the merged reader state into ``reader`` (a ShardflowDataLoader or dataset): its next
        iteration reads exactly the samples of the epoch that the saved job had not consumed, split
        over this job's ranks and workers, whatever their number."""
        if self.reader_state is None:
            raise ValueError(f"checkpoint {self.run} step {self.step} was saved without a reader position")
        reader.load_state_dict(self.reader_state, allow_snapshot_change)

    def verify(self) -> List[str]:
        """Re-reads every file and checks it against the manifest; returns the problems found."""
        problems = []
        for saved in self.manifest.files:
            try:
                verify_stored(self.store, saved)
            except Exception as e:  # noqa: BLE001 - every file is checked, every problem reported
                problems.append(str(e))
        return problems
