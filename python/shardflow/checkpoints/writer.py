"""Saving one step (docs/ARCHITECTURE.md, invariant 3; dataset/FORMAT.md, "Training checkpoints").

Every rank of the job calls :meth:`CheckpointWriter.save` together:

1. the ranks' reader states go to rank 0, which merges them (refused if the ranks were not in
   lockstep) and draws the attempt folder; every rank learns both;
2. each rank streams its files into ``step-<n>/<attempt>/rank-<r>/`` (create-only, parallel
   multipart), hashing them as they pass;
3. rank 0 gathers every rank's file list and writes ``MANIFEST.json`` create-only, only once every
   file is durable: from that moment the step exists. Then it adds the step's ``latest/`` pointer.

A save killed anywhere leaves at most files that no manifest names (garbage for ``ckpt gc``) or a
manifest without its pointer (a complete step, which ``resume`` finds and points to). Two attempts
at one step (a job re-saving a step after a crash, a zombie) write into different attempt folders;
the create-only manifest lets exactly one of them become the step.
"""

from __future__ import annotations

import hashlib
import json
import platform
import secrets
import sys
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Dict, List, Mapping, Optional

from shardflow.checkpoints import layout
from shardflow.checkpoints.collective import Collective
from shardflow.checkpoints.manifest import Manifest, RankFiles, SavedFile, lineage_of
from shardflow.checkpoints.values import encode
from shardflow.errors import ShardflowError
from shardflow.reading.resume import merge_states
from shardflow.storage.objectstore import ObjectStore

Observer = Callable[..., None]
"""Called as ``observer(event, **details)`` at each stage of a save (tests kill the process there)."""


class CheckpointExistsError(ShardflowError):
    """The step already has a manifest: a step is saved once."""


class CheckpointSaveError(ShardflowError):
    """A rank could not save its files: no manifest was written, the step does not exist."""


@dataclass(frozen=True)
class TransferOptions:
    part_size: int = 16 << 20
    """Bytes per multipart part and per ranged GET; memory per file is ``part_size * (parallelism + 1)``."""
    parallelism: int = 4


class CheckpointWriter:
    def __init__(self, store: ObjectStore, collective: Collective, clock: Callable[[], float],
                 options: TransferOptions, observer: Optional[Observer] = None):
        self.store, self.collective, self.clock, self.options = store, collective, clock, options
        self.observer = observer or (lambda event, **details: None)

    def save(self, run: str, step: int, values: Mapping[str, Any], reader: Any = None,
             metadata: Optional[Mapping[str, Any]] = None, uneven: str = "error") -> Manifest:
        layout.require_step(step)
        layout.run_prefix(run)
        for name in values:
            layout.require_file_name(name)
        rank = self.collective.rank
        state = _reader_state(reader)
        self.observer("save-begin", run=run, step=step, rank=rank)
        plan = self._agree(run, step, state, uneven)
        files: List[SavedFile] = []
        failure: Optional[BaseException] = None
        try:
            for name, value in values.items():
                files.append(self._write_file(layout.file_key(run, step, plan["attempt"], rank, name), name, value))
        except Exception as e:  # noqa: BLE001 - reported to rank 0, then raised here
            failure = e
        records = self.collective.gather({"rank": rank, "files": [f.__dict__ for f in files], "state": state,
                                          "error": None if failure is None else f"rank {rank}: {failure!r}"})
        outcome = self._commit(run, step, plan, records, metadata) if rank == 0 else None
        outcome = self.collective.broadcast(outcome)
        if failure is not None:
            raise failure
        if "exists" in outcome:
            raise CheckpointExistsError(outcome["exists"])
        if "error" in outcome:
            raise CheckpointSaveError(outcome["error"])
        self.observer("save-done", run=run, step=step, rank=rank)
        return Manifest.from_json(outcome["manifest"], run, step)

    # ---- stages ---------------------------------------------------------------------------------

    def _agree(self, run: str, step: int, state: Optional[Dict[str, Any]], uneven: str) -> Dict[str, Any]:
        states = self.collective.gather(state)
        plan = None
        if states is not None:
            try:
                given = [s for s in states if s is not None]
                if given and len(given) != len(states):
                    raise ValueError(f"ranks {[r for r, s in enumerate(states) if s is None]} passed no reader while "
                                     f"others did: pass each rank's loader, or none")
                merged = merge_states(given, uneven) if given else None
                plan = {"attempt": secrets.token_hex(8), "merged": merged}
            except ValueError as e:
                plan = {"error": f"cannot save {run} step {step}: {e}"}
        plan = self.collective.broadcast(plan)
        if "error" in plan:
            raise ValueError(plan["error"])
        return plan

    def _write_file(self, key: str, name: str, value: Any) -> SavedFile:
        self.observer("file-begin", key=key, name=name)
        writer = self.store.create_writer(key, self.options.part_size, self.options.parallelism)
        hashing = _Hashing(writer)
        try:
            kind = encode(value, hashing)
        except BaseException:
            writer.abort()
            raise
        size = writer.commit()
        self.observer("file-written", key=key, name=name, bytes=size)
        return SavedFile(name, kind, key, size, hashing.sha256.hexdigest())

    def _commit(self, run, step, plan, records, metadata) -> Dict[str, Any]:
        errors = [r["error"] for r in records if r["error"]]
        if errors:
            return {"error": f"{run} step {step} was not saved (no manifest written): {'; '.join(errors)}"}
        manifest = Manifest(
            run=run, step=step, attempt=plan["attempt"], saved_at=_iso(self.clock()), world_size=len(records),
            ranks=tuple(RankFiles(r["rank"], tuple(SavedFile(**f) for f in r["files"]), r["state"]) for r in records),
            reader_state=plan["merged"], datasets=lineage_of(plan["merged"]), frameworks=_frameworks(),
            metadata=dict(metadata or {}))
        body = manifest.encode()
        if not self.store.put_if_absent(layout.manifest_key(run, step), body):
            return {"exists": f"{run} step {step} is already saved ({layout.manifest_key(run, step)} exists); "
                              f"the files of this attempt ({plan['attempt']}) are left for 'shardflow ckpt gc'"}
        self.observer("manifest-written", run=run, step=step)
        write_pointer(self.store, run, step, body)
        self.observer("pointer-written", run=run, step=step)
        return {"manifest": manifest.to_json()}


def write_pointer(store: ObjectStore, run: str, step: int, manifest_bytes: bytes) -> None:
    """The step's ``latest/`` pointer, create-only (already there: someone else wrote it)."""
    pointer = {"run": run, "step": step, "manifest": layout.manifest_key(run, step),
               "manifestSha256": hashlib.sha256(manifest_bytes).hexdigest()}
    store.put_if_absent(layout.pointer_key(run, step), json.dumps(pointer).encode("utf-8"))


class _Hashing:
    """Hashes what passes to the object writer (no seek or tell: zipfile then streams)."""

    def __init__(self, writer):
        self._writer = writer
        self.sha256 = hashlib.sha256()

    def write(self, data) -> int:
        self.sha256.update(data)
        return self._writer.write(data)

    def flush(self) -> None:
        pass


def _reader_state(reader: Any) -> Optional[Dict[str, Any]]:
    if reader is None:
        return None
    if hasattr(reader, "state_dict"):
        return dict(reader.state_dict())
    if isinstance(reader, Mapping):
        return dict(reader)
    raise TypeError(f"reader must be a ShardflowDataLoader (or anything with state_dict()) or a reader state, "
                    f"not {type(reader).__name__}")


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _frameworks() -> Dict[str, str]:
    import numpy

    found = {"python": platform.python_version(), "numpy": numpy.__version__}
    torch = sys.modules.get("torch")
    if torch is not None:
        found["torch"] = str(torch.__version__)
    try:
        from importlib.metadata import version

        found["shardflow"] = version("shardflow")
    except Exception:  # noqa: BLE001 - run from a source tree that was never installed
        pass
    return found
