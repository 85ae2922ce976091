"""The commit log (``log/``): each entry makes a new immutable snapshot.

Snapshot ``n`` is the shards entries ``1..n`` added, in entry order, minus those a ``replace`` or
``delete`` entry among them removed (dataset/FORMAT.md, "Snapshots" and "Entry kinds").
Readers never list ``shards/``: every shard, with its size and SHA-256, comes from the log.

:func:`load_snapshot` is the one place that turns a snapshot id into its shard list. It starts from
the newest checkpoint at or below the id (:func:`find_checkpoint`, a file holding every shard up to
its snapshot) when one exists, and reads only the entries after it.
"""
from __future__ import annotations

import bisect
import threading
from typing import Optional, Tuple

from shardflow.errors import FormatError, SnapshotNotFoundError
from shardflow.format import layout
from shardflow.format.entries import (
    ENTRY_FORMAT_VERSIONS,
    CommitEntry,
    ShardEntry,
    Snapshot,
    apply_entries,
    entry_from_json,
    entry_to_json,
    parse_commit_entry,
    parse_ranges,
)
from shardflow.reading.logstore import (
    find_checkpoint,
    latest_snapshot_id,
    load_checkpoint,
    parse_checkpoint,
    read_entries,
    read_entry,
)
from shardflow.storage.store import ObjectStore

__all__ = ["CATCH_UP_THRESHOLD", "ENTRY_FORMAT_VERSIONS", "CommitEntry", "CommitLog", "ShardEntry", "Snapshot",
           "apply_entries", "entry_from_json", "entry_to_json", "find_checkpoint", "latest_snapshot_id",
           "load_checkpoint", "load_snapshot", "parse_checkpoint", "parse_commit_entry", "parse_ranges",
           "read_entries", "read_entry"]

CATCH_UP_THRESHOLD = 32
"""A reader that finds more new entries than this looks for a checkpoint to skip them (as Java's)."""


def load_snapshot(store: ObjectStore, dataset: str, version: str, snapshot_id: Optional[int] = None,
                  base: Optional[Snapshot] = None) -> Snapshot:
    """Snapshot ``snapshot_id`` (None = the latest) of ``dataset/version``.

    Without ``base`` (a snapshot of this log already read: snapshots never change) it starts from
    the newest checkpoint at or below ``snapshot_id``; with one, from ``base``, jumping to a
    checkpoint only when more than :data:`CATCH_UP_THRESHOLD` entries are new. Then it lists the log
    after that point (for the latest id) and reads the entries after it.
    """
    if snapshot_id is not None and snapshot_id < 0:
        raise ValueError(f"snapshot ids are >= 0, got {snapshot_id}")
    if base is not None and snapshot_id is not None and base.snapshot_id >= snapshot_id:
        older = _prefix(base, snapshot_id)
        if older is not None:
            return older
        base = None  # a replace or delete came later: read that snapshot from its own checkpoint and entries
    start = base if base is not None else Snapshot(dataset, version, 0, ())
    if base is None:
        start = find_checkpoint(store, dataset, version, snapshot_id) or start
    if snapshot_id is None:
        snapshot_id = latest_snapshot_id(store, dataset, version, after=start.snapshot_id)
    if base is not None and snapshot_id - start.snapshot_id > CATCH_UP_THRESHOLD:
        jump = find_checkpoint(store, dataset, version, snapshot_id)
        if jump is not None and jump.snapshot_id > start.snapshot_id:
            if _prefix(jump, base.snapshot_id) is not None and _prefix(jump, base.snapshot_id).shards != base.shards:
                raise FormatError(f"checkpoint {jump.snapshot_id} of {dataset}/{version} disagrees with log entries "
                                  f"1..{base.snapshot_id}: verify the dataset version")
            start = jump
    return apply_entries(start, read_entries(store, dataset, version, start.snapshot_id + 1, snapshot_id))


def _prefix(snapshot: Snapshot, snapshot_id: int) -> Optional[Snapshot]:
    """An older snapshot of the same log, when it is a prefix of this one (no entry after it removed
    a shard; each shard knows its snapshot); None otherwise."""
    if snapshot_id == snapshot.snapshot_id:
        return snapshot
    if any(r > snapshot_id for r in snapshot.removal_ids):
        return None
    ids = [s.snapshot_id for s in snapshot.shards]
    return Snapshot(snapshot.dataset, snapshot.version, snapshot_id,
                    snapshot.shards[:bisect.bisect_right(ids, snapshot_id)],
                    tuple(r for r in snapshot.removal_ids if r <= snapshot_id),
                    frozenset(i for i in snapshot.non_append_ids if i <= snapshot_id),
                    frozenset())


class CommitLog:
    """One dataset version's log as far as it has been read. Snapshots never change, so the newest
    one read is kept and extended, and older ones are prefixes of it.

    Thread-safe. Picklable (what was read goes along), so DataLoader workers start from what the
    main process already read.
    """

    def __init__(self, store: ObjectStore, dataset: str, version: str):
        self.store = store
        self.dataset = layout.require_name("dataset name", dataset)
        self.version = layout.require_name("dataset version", version)
        self._newest = Snapshot(self.dataset, self.version, 0, ())
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"store": self.store, "dataset": self.dataset, "version": self.version, "newest": self._newest}

    def __setstate__(self, state):
        self.__init__(state["store"], state["dataset"], state["version"])
        self._newest = state["newest"]

    @property
    def known_id(self) -> int:
        """The newest snapshot id read so far (no I/O)."""
        return self._newest.snapshot_id

    def latest_id(self) -> int:
        """Lists ``log/`` after the newest known entry."""
        return latest_snapshot_id(self.store, self.dataset, self.version, after=self.known_id)

    def snapshot(self, snapshot_id: Optional[int] = None) -> Snapshot:
        """Snapshot ``snapshot_id`` (None = the latest), reading only entries not read before."""
        with self._lock:
            base = self._newest if self._newest.snapshot_id > 0 else None  # a first read may start at a checkpoint
            snapshot = load_snapshot(self.store, self.dataset, self.version, snapshot_id, base=base)
            if snapshot.snapshot_id > self._newest.snapshot_id:
                self._newest = snapshot
            if snapshot.snapshot_id in self._newest.expired_ids:
                raise SnapshotNotFoundError(f"snapshot {snapshot.snapshot_id} of {self.dataset}/{self.version} has "
                                            f"expired (dataset expire); its shards may be deleted")
            return snapshot

    def added_by(self, snapshot_id: int) -> Optional[Tuple[ShardEntry, ...]]:
        """The shards with new rows entry ``snapshot_id`` added (none for entries other than appends:
        a replace or delete re-adds rows already there), or None if it is not committed yet. Entries
        not read before are fetched by key, one GET each, without listing: cheap enough to poll."""
        with self._lock:
            while self._newest.snapshot_id < snapshot_id:
                entry = read_entry(self.store, self.dataset, self.version, self._newest.snapshot_id + 1)
                if entry is None:
                    return None
                self._newest = apply_entries(self._newest, [entry])
            if snapshot_id in self._newest.non_append_ids:
                return ()
            return tuple(s for s in self._newest.shards if s.snapshot_id == snapshot_id)
