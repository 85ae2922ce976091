"""Finding a run's checkpoints. A step exists when its MANIFEST does; nothing else counts.

The newest complete step: the first key of ``latest/`` (pointers sort newest first) names a step;
then the step folders after it are listed (one short listing: a save killed between its manifest
and its pointer left a complete step there, which gets its pointer now) and the newest with a
manifest wins. A pointer whose manifest is gone (deleted by hand) is passed over.
"""

from __future__ import annotations

import json
import logging
from typing import Iterator, List, Optional

from shardflow.checkpoints import layout
from shardflow.checkpoints.manifest import Manifest
from shardflow.checkpoints.writer import write_pointer
from shardflow.format.layout import NAME
from shardflow.storage.objectstore import ObjectStore

log = logging.getLogger(__name__)


class CheckpointIndex:
    def __init__(self, store: ObjectStore):
        self.store = store

    def runs(self) -> List[str]:
        names = (p[len(layout.runs_prefix()):-1] for p in self.store.list_prefixes(layout.runs_prefix()))
        return [n for n in names if NAME.fullmatch(n)]

    def step_folders(self, run: str, after: Optional[int] = None) -> List[int]:
        """Steps that have a folder (complete or not), ascending; those after ``after`` only."""
        start = layout.after_step(run, after) if after is not None else None
        steps = (layout.step_of_prefix(run, p) for p in self.store.list_prefixes(layout.steps_prefix(run), start))
        return [s for s in steps if s is not None]

    def manifest(self, run: str, step: int) -> Optional[Manifest]:
        data = self.store.get(layout.manifest_key(run, step))
        return None if data is None else Manifest.decode(data, run, step)

    def _manifest_and_bytes(self, run: str, step: int):
        data = self.store.get(layout.manifest_key(run, step))
        return (None, None) if data is None else (Manifest.decode(data, run, step), data)

    def complete(self, run: str) -> Iterator[Manifest]:
        """Every saved step of the run, ascending (one GET per step folder)."""
        for step in self.step_folders(run):
            manifest = self.manifest(run, step)
            if manifest is not None:
                yield manifest

    def newest_pointer(self, run: str) -> Optional[int]:
        for key in self.store.list_keys(layout.pointers_prefix(run), limit=1):
            return layout.step_of_pointer(run, key)
        return None

    def latest(self, run: str) -> Optional[Manifest]:
        pointed = self.newest_pointer(run)
        for step in reversed(self.step_folders(run, after=pointed)):
            manifest, data = self._manifest_and_bytes(run, step)
            if manifest is not None:
                log.info("run %s: step %d has a manifest but no pointer (a save stopped after its manifest); "
                         "adding the pointer", run, step)
                write_pointer(self.store, run, step, data)
                return manifest
        if pointed is None:
            return None
        manifest = self.manifest(run, pointed)
        if manifest is not None:
            return manifest
        log.warning("run %s: the pointer to step %d has no manifest; looking at the earlier steps", run, pointed)
        for step in reversed(self.step_folders(run)):
            if step < pointed:
                manifest = self.manifest(run, step)
                if manifest is not None:
                    return manifest
        return None

    def pins(self, run: str) -> dict:
        """Pinned steps of the run: step -> the pin's note."""
        found = {}
        for key in self.store.list_keys(layout.pins_prefix(run)):
            step = layout.step_of_pin(run, key)
            if step is not None:
                data = self.store.get(key)
                found[step] = json.loads(data).get("note", "") if data else ""
        return found
