"""The commit log (``log/``): each entry adds shards and so makes a new immutable snapshot.

Snapshot ``n`` is the shards of entries ``1..n`` in entry order (dataset/FORMAT.md, "Snapshots").
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
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from shardflow import layout
from shardflow.formatjson import FORMAT_VERSION, load_format_json
from shardflow.errors import FormatError, SnapshotNotFoundError
from shardflow.store import ObjectStore

CATCH_UP_THRESHOLD = 32
"""A reader that finds more new entries than this looks for a checkpoint to skip them (as Java's)."""
_READ_THREADS = 16

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


@dataclass(frozen=True)
class Snapshot:
    """The shards of commit entries ``1..snapshot_id``, in entry order. Snapshot 0 is empty."""

    dataset: str
    version: str
    snapshot_id: int
    shards: Tuple[ShardEntry, ...]

    @property
    def sample_count(self) -> int:
        return sum(s.sample_count for s in self.shards)

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s in self.shards)


def parse_commit_entry(data: bytes, where: str) -> CommitEntry:
    """Parses one entry; unknown fields are ignored, another ``formatVersion`` is refused."""
    root = load_format_json(data, where)
    try:
        snapshot_id = _int(root["snapshotId"])
        shards = tuple(_shard(node, snapshot_id) for node in root["addedShards"])
        entry = CommitEntry(snapshot_id, str(root["committer"]), str(root["committedAt"]), shards)
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where} lacks or misstates field {e}") from None
    if not shards:
        raise FormatError(f"{where} adds no shards")
    return entry


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
    data = store.get(key)
    if data is None:
        log.warning("Checkpoint %s was listed but cannot be read; reading log entries instead", key)
        return None
    try:
        return parse_checkpoint(data, key, dataset, version, snapshot_id)
    except FormatError as e:
        log.warning("Ignoring unusable checkpoint: %s; reading log entries instead", e)
        return None


def parse_checkpoint(data: bytes, where: str, dataset: str, version: str, snapshot_id: int) -> Snapshot:
    """Gzip-compressed JSON: ``formatVersion`` (1), ``dataset``, ``version``, ``snapshotId``,
    ``sourceOffsets``, ``commits`` (one ``{snapshotId, committer, committedAt, addedShardCount}`` per
    entry, in id order) and ``shards`` (every shard in entry order, fields as in ``addedShards``)."""
    try:
        root = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as e:
        raise FormatError(f"{where} is not gzip-compressed JSON: {e}") from None
    found = root.get("formatVersion") if isinstance(root, dict) else None
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
        return _prefix(base, snapshot_id)
    start = base if base is not None else Snapshot(dataset, version, 0, ())
    if base is None:
        start = find_checkpoint(store, dataset, version, snapshot_id) or start
    if snapshot_id is None:
        snapshot_id = latest_snapshot_id(store, dataset, version, after=start.snapshot_id)
    if base is not None and snapshot_id - start.snapshot_id > CATCH_UP_THRESHOLD:
        jump = find_checkpoint(store, dataset, version, snapshot_id)
        if jump is not None and jump.snapshot_id > start.snapshot_id:
            if jump.shards[:len(base.shards)] != base.shards:
                raise FormatError(f"checkpoint {jump.snapshot_id} of {dataset}/{version} disagrees with log entries "
                                  f"1..{base.snapshot_id}: verify the dataset version")
            start = jump
    shards = list(start.shards)
    for entry in read_entries(store, dataset, version, start.snapshot_id + 1, snapshot_id):
        shards.extend(entry.added_shards)
    if len(shards) > len(start.shards):
        _check_unique(dataset, version, shards)
    return Snapshot(dataset, version, snapshot_id, tuple(shards))


def _prefix(snapshot: Snapshot, snapshot_id: int) -> Snapshot:
    """An older snapshot of the same log: its shards are a prefix (each shard knows its snapshot)."""
    if snapshot_id == snapshot.snapshot_id:
        return snapshot
    ids = [s.snapshot_id for s in snapshot.shards]
    return Snapshot(snapshot.dataset, snapshot.version, snapshot_id,
                    snapshot.shards[:bisect.bisect_right(ids, snapshot_id)])


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
            return snapshot

    def added_by(self, snapshot_id: int) -> Optional[Tuple[ShardEntry, ...]]:
        """The shards entry ``snapshot_id`` added, or None if it is not committed yet. Entries not
        read before are fetched by key, one GET each, without listing: cheap enough to poll."""
        with self._lock:
            while self._newest.snapshot_id < snapshot_id:
                entry = read_entry(self.store, self.dataset, self.version, self._newest.snapshot_id + 1)
                if entry is None:
                    return None
                shards = self._newest.shards + entry.added_shards
                _check_unique(self.dataset, self.version, shards)
                self._newest = Snapshot(self.dataset, self.version, entry.snapshot_id, shards)
            return tuple(s for s in self._newest.shards if s.snapshot_id == snapshot_id)
