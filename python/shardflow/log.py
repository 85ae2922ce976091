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
import gzip
import json
import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from shardflow import layout
from shardflow.formatjson import FORMAT_VERSION
from shardflow.errors import FormatError, SnapshotNotFoundError
from shardflow.store import ObjectStore

CATCH_UP_THRESHOLD = 32
"""A reader that finds more new entries than this looks for a checkpoint to skip them (as Java's)."""
_READ_THREADS = 16
ENTRY_FORMAT_VERSIONS = (1, 2)
"""1: append entries (and whole-snapshot checkpoints); 2: the other entry kinds (and checkpoint segments)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShardEntry:
    """One committed shard: where it is and what it must hash to."""

    shard_id: str
    object_key: str
    lane: int
    sequence: int
    sample_count: int
    bytes: int
    sha256: str
    spec_fingerprint: str
    first_produced_at: int
    last_produced_at: int
    snapshot_id: int
    """The snapshot whose commit entry added this shard."""


@dataclass(frozen=True)
class CommitEntry:
    snapshot_id: int
    committer: str
    committed_at: str
    added_shards: Tuple[ShardEntry, ...]
    kind: str = "append"
    """append, replace, delete, tag, retention or expire."""
    removed_shards: Tuple[str, ...] = ()
    details: Dict[str, str] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Snapshot:
    """The shards of commit entries ``1..snapshot_id``, in entry order. Snapshot 0 is empty."""

    dataset: str
    version: str
    snapshot_id: int
    shards: Tuple[ShardEntry, ...]
    removal_ids: Tuple[int, ...] = ()
    """Ids of the entries 1..snapshot_id that removed shards: an older snapshot is a prefix of this
    one only if none of them lies between the two."""
    non_append_ids: frozenset = frozenset()
    """Ids of the entries 1..snapshot_id that are not appends (their shards hold no new rows)."""
    expired_ids: frozenset = frozenset()
    """Snapshots an expire entry among 1..snapshot_id took out of the live view."""

    @property
    def sample_count(self) -> int:
        return sum(s.sample_count for s in self.shards)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s in self.shards)


def parse_commit_entry(data: bytes, where: str) -> CommitEntry:
    """Parses one entry; unknown fields are ignored, an unknown ``formatVersion`` is refused."""
    try:
        root = json.loads(data)
    except ValueError as e:
        raise FormatError(f"{where} is not JSON: {e}") from None
    return entry_from_json(root, where)


def entry_from_json(root: Any, where: str) -> CommitEntry:
    """An entry from its JSON object (log entries and checkpoint segments embed the same object)."""
    if not isinstance(root, dict) or root.get("formatVersion") not in ENTRY_FORMAT_VERSIONS:
        found = root.get("formatVersion") if isinstance(root, dict) else None
        raise FormatError(f"{where} has formatVersion {found!r}, this reader understands only "
                          f"{ENTRY_FORMAT_VERSIONS}: upgrade shardflow")
    try:
        snapshot_id = _int(root["snapshotId"])
        shards = tuple(_shard(node, snapshot_id) for node in root["addedShards"])
        kind = str(root.get("kind", "append"))
        removed = tuple(str(i) for i in root.get("removedShards", ()))
        details = {str(k): str(v) for k, v in root.get("details", {}).items()}
        entry = CommitEntry(snapshot_id, str(root["committer"]), str(root["committedAt"]), shards, kind, removed,
                            details)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise FormatError(f"{where} lacks or misstates field {e}") from None
    if kind not in ("append", "replace", "delete", "tag", "retention", "expire"):
        raise FormatError(f"{where} has unknown kind {kind!r}: upgrade shardflow")
    if kind == "append" and not shards:
        raise FormatError(f"{where} adds no shards")
    return entry


def apply_entries(start: Snapshot, entries: Iterable[CommitEntry]) -> Snapshot:
    """``start`` followed by ``entries`` (the next ids, in order): removals first, then additions."""
    shards = list(start.shards)
    removal_ids = list(start.removal_ids)
    non_append = set(start.non_append_ids)
    expired = set(start.expired_ids)
    snapshot_id = start.snapshot_id
    for entry in entries:
        if entry.snapshot_id != snapshot_id + 1:
            raise FormatError(f"entry {entry.snapshot_id} of {start.dataset}/{start.version} follows {snapshot_id}")
        snapshot_id = entry.snapshot_id
        if entry.removed_shards:
            gone = set(entry.removed_shards)
            kept = [s for s in shards if s.shard_id not in gone]
            if len(shards) - len(kept) != len(gone):
                raise FormatError(f"commit log of {start.dataset}/{start.version} is corrupt: entry {snapshot_id} "
                                  f"removes shards that are not in snapshot {snapshot_id - 1}")
            shards = kept
            removal_ids.append(snapshot_id)
        if entry.kind != "append":
            non_append.add(snapshot_id)
        if entry.kind == "expire":
            expired.update(parse_ranges(entry.details.get("expired", "")))
        shards.extend(entry.added_shards)
    if snapshot_id > start.snapshot_id:
        _check_unique(start.dataset, start.version, shards)
    return Snapshot(start.dataset, start.version, snapshot_id, tuple(shards), tuple(removal_ids),
                    frozenset(non_append), frozenset(expired))


def parse_ranges(text: str) -> List[int]:
    """``"1-5,7"`` (how an expire entry lists snapshot ids) as ``[1, 2, 3, 4, 5, 7]``."""
    ids: List[int] = []
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        ids.extend(range(int(first), int(last or first) + 1))
    return ids


def entry_to_json(entry: CommitEntry, source_offsets: Optional[Dict[str, int]] = None) -> Dict[str, Any]:
    """The JSON object of an entry, as the Java CommitLogCodec writes it (used by shardflow.testing)."""
    return {
        "formatVersion": FORMAT_VERSION, "snapshotId": entry.snapshot_id, "committer": entry.committer,
        "committedAt": entry.committed_at, "sourceOffsets": dict(source_offsets or {}),
        "addedShards": [{
            "shardId": s.shard_id, "objectKey": s.object_key, "lane": s.lane, "sequence": s.sequence,
            "sampleCount": s.sample_count, "bytes": s.bytes, "sha256": s.sha256,
            "specFingerprint": s.spec_fingerprint, "firstProducedAt": s.first_produced_at,
            "lastProducedAt": s.last_produced_at} for s in entry.added_shards],
    }


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def _shard(node: Dict[str, Any], snapshot_id: int) -> ShardEntry:
    entry = ShardEntry(
        shard_id=str(node["shardId"]), object_key=str(node["objectKey"]), lane=_int(node["lane"]),
        sequence=_int(node["sequence"]), sample_count=_int(node["sampleCount"]), bytes=_int(node["bytes"]),
        sha256=str(node["sha256"]), spec_fingerprint=str(node["specFingerprint"]),
        first_produced_at=_int(node["firstProducedAt"]), last_produced_at=_int(node["lastProducedAt"]),
        snapshot_id=snapshot_id)
    if entry.sample_count < 1 or entry.bytes < 1:
        raise ValueError(f"shard {entry.shard_id} has sampleCount {entry.sample_count} and bytes {entry.bytes}")
    if len(entry.sha256) != 64 or entry.sha256.strip("0123456789abcdef"):
        raise ValueError(f"shard {entry.shard_id} has sha256 {entry.sha256!r}, expected 64 lowercase hex digits")
    return entry


def read_entry(store: ObjectStore, dataset: str, version: str, snapshot_id: int) -> Optional[CommitEntry]:
    """Entry ``snapshot_id``, or None if it is not committed (yet)."""
    key = layout.commit_key(dataset, version, snapshot_id)
    data = store.get(key)
    if data is None:
        return None
    entry = parse_commit_entry(data, key)
    if entry.snapshot_id != snapshot_id:
        raise FormatError(f"commit-log entry {key} says it is snapshot {entry.snapshot_id}")
    return entry


def latest_snapshot_id(store: ObjectStore, dataset: str, version: str, after: int = 0) -> int:
    """The newest committed snapshot id, from a listing of ``log/`` (never of ``shards/``).

    ``after`` is an id known to exist: listing starts there, so following a log stays cheap.
    """
    prefix = layout.log_prefix(dataset, version)
    start = layout.commit_key(dataset, version, after) if after > 0 else None
    latest = after
    for key in store.list_keys(prefix, start_after=start):
        snapshot_id = layout.snapshot_id_of(dataset, version, key)
        if snapshot_id is None:
            continue  # not an entry (a newer writer's file): ignored, as FORMAT.md allows
        if snapshot_id != latest + 1:
            raise FormatError(f"commit log of {dataset}/{version} has entry {snapshot_id} where {latest + 1} "
                              f"was expected (entries missing or deleted)")
        latest = snapshot_id
    return latest


def find_checkpoint(store: ObjectStore, dataset: str, version: str, at_most: Optional[int] = None) -> Optional[Snapshot]:
    """The snapshot stored in the newest checkpoint with id ``<= at_most`` (None: the newest of all),
    or None. One LIST of at most one key (checkpoint keys sort newest first) and one GET.

    Checkpoints (``checkpoints/<descending id>-<id>.json.gz``, written by the committer every N
    snapshots; dataset/FORMAT.md, "Checkpoints") hold everything entries ``1..id`` say. They are an
    optimisation, never a second truth: one that cannot be read or disagrees with itself is skipped
    with a warning, and the entries are read instead.
    """
    prefix = layout.checkpoint_prefix(dataset, version)
    start = layout.checkpoint_search_start(dataset, version, at_most) if at_most is not None else None
    key = next(iter(store.list_keys(prefix, start_after=start, limit=1)), None)
    if key is None:
        return None
    snapshot_id = layout.checkpoint_id_of(dataset, version, key)
    if snapshot_id is None or (at_most is not None and snapshot_id > at_most):
        log.warning("Ignoring %s: not a checkpoint of %s/%s at or before snapshot %s", key, dataset, version, at_most)
        return None
    try:
        return load_checkpoint(store, dataset, version, snapshot_id)
    except FormatError as e:
        log.warning("Ignoring unusable checkpoint: %s; reading log entries instead", e)
        return None


def load_checkpoint(store: ObjectStore, dataset: str, version: str, snapshot_id: int) -> Snapshot:
    """The snapshot checkpoint ``snapshot_id`` stands for. Version 2 (a segment: entries
    ``base+1..id``) is applied on top of the checkpoint at ``base``, fetched by key; version 1 (a
    whole snapshot) ends the chain. Raises FormatError if a link is missing or invalid."""
    segments = []
    next_id = snapshot_id
    start = Snapshot(dataset, version, 0, ())
    while next_id > 0:
        key = layout.checkpoint_key(dataset, version, next_id)
        data = store.get(key)
        if data is None:
            raise FormatError(f"checkpoint {key} is missing")
        root = _gunzip_json(data, key)
        if root.get("formatVersion") == FORMAT_VERSION:
            start = parse_checkpoint(data, key, dataset, version, next_id)
            break
        if root.get("formatVersion") != 2:
            raise FormatError(f"{key} has formatVersion {root.get('formatVersion')!r}: upgrade shardflow")
        try:
            if (root["dataset"], root["version"], _int(root["snapshotId"])) != (dataset, version, next_id):
                raise FormatError(f"{key} describes snapshot {root['snapshotId']} of {root['dataset']}/{root['version']}")
            base = _int(root["base"])
            entries = [entry_from_json(node, key) for node in root["entries"]]
        except (KeyError, TypeError, ValueError) as e:
            raise FormatError(f"{key} lacks or misstates field {e}") from None
        if not 0 <= base < next_id or [e.snapshot_id for e in entries] != list(range(base + 1, next_id + 1)):
            raise FormatError(f"{key} does not hold entries {base + 1}..{next_id}")
        segments.append(entries)
        next_id = base
    for entries in reversed(segments):
        start = apply_entries(start, entries)
    return start


def _gunzip_json(data: bytes, where: str) -> Dict[str, Any]:
    try:
        root = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as e:
        raise FormatError(f"{where} is not gzip-compressed JSON: {e}") from None
    if not isinstance(root, dict):
        raise FormatError(f"{where} is not a JSON object")
    return root


def parse_checkpoint(data: bytes, where: str, dataset: str, version: str, snapshot_id: int) -> Snapshot:
    """Gzip-compressed JSON: ``formatVersion`` (1), ``dataset``, ``version``, ``snapshotId``,
    ``sourceOffsets``, ``commits`` (one ``{snapshotId, committer, committedAt, addedShardCount}`` per
    entry, in id order) and ``shards`` (every shard in entry order, fields as in ``addedShards``)."""
    root = _gunzip_json(data, where)
    found = root.get("formatVersion")
    if found != FORMAT_VERSION:
        raise FormatError(f"{where} has formatVersion {found!r}, this reader understands only {FORMAT_VERSION}")
    try:
        if (root["dataset"], root["version"], _int(root["snapshotId"])) != (dataset, version, snapshot_id):
            raise FormatError(f"{where} describes snapshot {root['snapshotId']} of {root['dataset']}/{root['version']}")
        commits = root["commits"]
        nodes = root["shards"]
        if [_int(c["snapshotId"]) for c in commits] != list(range(1, snapshot_id + 1)):
            raise FormatError(f"{where} does not list commits 1..{snapshot_id} in order")
        counts = [_int(c["addedShardCount"]) for c in commits]
        if sum(counts) != len(nodes) or min(counts, default=1) < 1:
            raise FormatError(f"{where}: its commits add {sum(counts)} shards but it holds {len(nodes)}")
        shards: List[ShardEntry] = []
        for commit_id, count in enumerate(counts, start=1):
            shards.extend(_shard(node, commit_id) for node in nodes[len(shards):len(shards) + count])
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where} lacks or misstates field {e}") from None
    _check_unique(dataset, version, shards)
    return Snapshot(dataset, version, snapshot_id, tuple(shards))


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


def read_entries(store: ObjectStore, dataset: str, version: str, first: int, last: int) -> List[CommitEntry]:
    """Entries ``first..last`` (GETs in parallel); a missing one is a SnapshotNotFoundError."""
    ids = list(range(first, last + 1))
    if not ids:
        return []
    if len(ids) == 1:
        entries = [read_entry(store, dataset, version, ids[0])]
    else:
        with ThreadPoolExecutor(min(_READ_THREADS, len(ids))) as pool:
            entries = list(pool.map(lambda i: read_entry(store, dataset, version, i), ids))
    for i, entry in zip(ids, entries):
        if entry is None:
            raise SnapshotNotFoundError(f"snapshot {last} of {dataset}/{version} does not exist: commit-log entry "
                                        f"{i} is missing")
    return entries


def _check_unique(dataset: str, version: str, shards: Sequence[ShardEntry]) -> None:
    seen: Dict[str, int] = {}
    for s in shards:
        if s.shard_id in seen:
            raise FormatError(f"commit log of {dataset}/{version} is corrupt: shard {s.shard_id} is added by "
                              f"snapshot {seen[s.shard_id]} and again by snapshot {s.snapshot_id}")
        seen[s.shard_id] = s.snapshot_id


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
