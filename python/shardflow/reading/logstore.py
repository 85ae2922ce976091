"""Reading the commit log's objects from a store: entries one by one or many at once, the newest
id, and checkpoints (a snapshot stored whole, so a reader need not replay every entry)."""

from __future__ import annotations

import gzip
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional

from shardflow.errors import FormatError, SnapshotNotFoundError
from shardflow.format import layout
from shardflow.format.entries import (
    CommitEntry,
    ShardEntry,
    Snapshot,
    apply_entries,
    as_int,
    check_unique,
    entry_from_json,
    parse_commit_entry,
    shard_from_json,
)
from shardflow.format.formatjson import FORMAT_VERSION
from shardflow.storage.store import ObjectStore

_READ_THREADS = 16

log = logging.getLogger(__name__)


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
            if (root["dataset"], root["version"], as_int(root["snapshotId"])) != (dataset, version, next_id):
                raise FormatError(f"{key} describes snapshot {root['snapshotId']} of {root['dataset']}/{root['version']}")
            base = as_int(root["base"])
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
        if (root["dataset"], root["version"], as_int(root["snapshotId"])) != (dataset, version, snapshot_id):
            raise FormatError(f"{where} describes snapshot {root['snapshotId']} of {root['dataset']}/{root['version']}")
        commits = root["commits"]
        nodes = root["shards"]
        if [as_int(c["snapshotId"]) for c in commits] != list(range(1, snapshot_id + 1)):
            raise FormatError(f"{where} does not list commits 1..{snapshot_id} in order")
        counts = [as_int(c["addedShardCount"]) for c in commits]
        if sum(counts) != len(nodes) or min(counts, default=1) < 1:
            raise FormatError(f"{where}: its commits add {sum(counts)} shards but it holds {len(nodes)}")
        shards: List[ShardEntry] = []
        for commit_id, count in enumerate(counts, start=1):
            shards.extend(shard_from_json(node, commit_id) for node in nodes[len(shards):len(shards) + count])
    except (KeyError, TypeError, ValueError) as e:
        raise FormatError(f"{where} lacks or misstates field {e}") from None
    check_unique(dataset, version, shards)
    return Snapshot(dataset, version, snapshot_id, tuple(shards))


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
