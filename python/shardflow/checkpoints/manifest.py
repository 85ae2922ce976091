"""A training checkpoint's MANIFEST (dataset/FORMAT.md, "Training checkpoints"): written last and
create-only, it is what makes a step exist. It names every file each rank saved (key, size,
SHA-256, how to decode it), each rank's reader state and the merged one, the dataset snapshots
those states read (the checkpoint's lineage, which dataset expiry must keep) and the framework
versions that wrote it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Tuple

from shardflow.checkpoints import layout
from shardflow.errors import FormatError

FORMAT = "shardflow.training-checkpoint/1"
KINDS = ("torch", "numpy", "bytes")
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class SavedFile:
    name: str
    kind: str
    """How :meth:`Checkpoint.load` decodes it: ``torch`` (a torch.save file), ``numpy`` (.npy), ``bytes``."""
    key: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class RankFiles:
    rank: int
    files: Tuple[SavedFile, ...]
    reader_state: Optional[Dict[str, Any]]


@dataclass(frozen=True)
class DatasetPin:
    """A snapshot the checkpoint's reader position needs: resuming re-reads the rest of its epoch."""

    dataset: str
    version: str
    snapshot_id: int
    since_snapshot: Optional[int] = None


@dataclass(frozen=True)
class Manifest:
    run: str
    step: int
    attempt: str
    saved_at: str
    world_size: int
    ranks: Tuple[RankFiles, ...]
    reader_state: Optional[Dict[str, Any]]
    """The ranks' states merged (``shardflow.merge_states``): what a resume on any world size loads."""
    datasets: Tuple[DatasetPin, ...]
    frameworks: Dict[str, str] = field(default_factory=dict)
    metadata: Dict[str, Any] = field(default_factory=dict)

    @property
    def bytes(self) -> int:
        return sum(f.bytes for r in self.ranks for f in r.files)

    @property
    def files(self) -> Tuple[SavedFile, ...]:
        return tuple(f for r in self.ranks for f in r.files)

    def file(self, name: str, rank: int = 0) -> SavedFile:
        for r in self.ranks:
            if r.rank == rank:
                for f in r.files:
                    if f.name == name:
                        return f
        saved = sorted({(r.rank, f.name) for r in self.ranks for f in r.files})
        raise KeyError(f"checkpoint {self.run} step {self.step} has no file {name!r} of rank {rank}; it has "
                       f"{', '.join(f'{n} (rank {r})' for r, n in saved) or 'no files'}")

    def to_json(self) -> Dict[str, Any]:
        return {
            "format": FORMAT, "run": self.run, "step": self.step, "attempt": self.attempt, "savedAt": self.saved_at,
            "worldSize": self.world_size,
            "datasets": [{"dataset": d.dataset, "version": d.version, "snapshotId": d.snapshot_id,
                          "sinceSnapshot": d.since_snapshot} for d in self.datasets],
            "readerState": self.reader_state,
            "ranks": [{"rank": r.rank, "readerState": r.reader_state,
                       "files": [{"name": f.name, "kind": f.kind, "key": f.key, "bytes": f.bytes, "sha256": f.sha256}
                                 for f in r.files]} for r in self.ranks],
            "frameworks": dict(self.frameworks), "metadata": dict(self.metadata),
        }

    def encode(self) -> bytes:
        return (json.dumps(self.to_json(), indent=1, sort_keys=False) + "\n").encode("utf-8")

    @staticmethod
    def decode(data: bytes, run: str, step: int) -> "Manifest":
        """Parses and checks a manifest read from ``runs/<run>/step-<step>/MANIFEST.json``."""
        where = layout.manifest_key(run, step)
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise FormatError(f"{where} is not JSON: {e}") from None
        return Manifest.from_json(doc, run, step, where)

    @staticmethod
    def from_json(doc: Mapping[str, Any], run: str, step: int, where: str = "manifest") -> "Manifest":
        if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
            found = doc.get("format") if isinstance(doc, Mapping) else type(doc).__name__
            raise FormatError(f"{where}: format {found!r}, expected {FORMAT!r} (written by a newer shardflow?)")
        try:
            manifest = Manifest(
                run=str(doc["run"]), step=int(doc["step"]), attempt=str(doc["attempt"]), saved_at=str(doc["savedAt"]),
                world_size=int(doc["worldSize"]),
                ranks=tuple(RankFiles(int(r["rank"]), tuple(SavedFile(str(f["name"]), str(f["kind"]), str(f["key"]),
                                                                      int(f["bytes"]), str(f["sha256"]))
                                                            for f in r["files"]), r.get("readerState"))
                            for r in doc["ranks"]),
                reader_state=doc.get("readerState"),
                datasets=tuple(DatasetPin(str(d["dataset"]), str(d["version"]), int(d["snapshotId"]),
                                          None if d.get("sinceSnapshot") is None else int(d["sinceSnapshot"]))
                               for d in doc.get("datasets", ())),
                frameworks=dict(doc.get("frameworks") or {}), metadata=dict(doc.get("metadata") or {}))
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"{where}: a damaged manifest ({e!r})") from None
        _check(manifest, run, step, where)
        return manifest


def _check(m: Manifest, run: str, step: int, where: str) -> None:
    if (m.run, m.step) != (run, step):
        raise FormatError(f"{where} says run {m.run!r} step {m.step}, but it is stored as run {run!r} step {step}")
    layout.attempt_prefix(run, step, m.attempt)  # raises on a bad attempt
    seen = set()
    for r in m.ranks:
        for f in r.files:
            expected = layout.file_key(run, step, m.attempt, r.rank, f.name)
            if f.key != expected:
                raise FormatError(f"{where}: file {f.name!r} of rank {r.rank} is stored at {f.key!r}, expected "
                                  f"{expected!r}")
            if f.bytes < 0 or not _SHA256.fullmatch(f.sha256) or f.key in seen:
                raise FormatError(f"{where}: bad entry for {f.key!r} (size {f.bytes}, sha256 {f.sha256!r})")
            seen.add(f.key)


def lineage_of(reader_state: Optional[Mapping[str, Any]]) -> Tuple[DatasetPin, ...]:
    """The snapshots a reader state (``shardflow.read-state/2``) reads: each source's pinned
    snapshot (and, for ``new_only``, the snapshot it reads on from)."""
    if not reader_state:
        return ()
    return tuple(DatasetPin(s["dataset"], s["version"], int(s["snapshot_id"]),
                            None if s.get("since_snapshot") is None else int(s["since_snapshot"]))
                 for s in reader_state.get("sources", ()))
