"""The commit log's entries and snapshots as data: parsed from and written as JSON (FORMAT.md), and
applied one after another to make each snapshot."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from shardflow.errors import FormatError
from shardflow.format.formatjson import FORMAT_VERSION

ENTRY_FORMAT_VERSIONS = (1, 2)
"""1: append entries (and whole-snapshot checkpoints); 2: the other entry kinds (and checkpoint segments)."""


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
    page_index_sha256: Optional[str] = None
    """SHA-256 of the shard's page index object (FORMAT.md, "Page index"), which lets a reader verify
    single pages of the shard; None for shards written without one (read whole instead)."""


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
        snapshot_id = as_int(root["snapshotId"])
        shards = tuple(shard_from_json(node, snapshot_id) for node in root["addedShards"])
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
        check_unique(start.dataset, start.version, shards)
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
    """The JSON object of an entry, as the Java CommitLogCodec writes it (used by shardflow.tools.testing)."""
    return {
        "formatVersion": FORMAT_VERSION, "snapshotId": entry.snapshot_id, "committer": entry.committer,
        "committedAt": entry.committed_at, "sourceOffsets": dict(source_offsets or {}),
        "addedShards": [{
            "shardId": s.shard_id, "objectKey": s.object_key, "lane": s.lane, "sequence": s.sequence,
            "sampleCount": s.sample_count, "bytes": s.bytes, "sha256": s.sha256,
            "specFingerprint": s.spec_fingerprint, "firstProducedAt": s.first_produced_at,
            "lastProducedAt": s.last_produced_at,
            **({"pageIndexSha256": s.page_index_sha256} if s.page_index_sha256 else {})} for s in entry.added_shards],
    }


def as_int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected an integer, got {value!r}")
    return value


def shard_from_json(node: Dict[str, Any], snapshot_id: int) -> ShardEntry:
    entry = ShardEntry(
        shard_id=str(node["shardId"]), object_key=str(node["objectKey"]), lane=as_int(node["lane"]),
        sequence=as_int(node["sequence"]), sample_count=as_int(node["sampleCount"]), bytes=as_int(node["bytes"]),
        sha256=str(node["sha256"]), spec_fingerprint=str(node["specFingerprint"]),
        first_produced_at=as_int(node["firstProducedAt"]), last_produced_at=as_int(node["lastProducedAt"]),
        snapshot_id=snapshot_id, page_index_sha256=_optional_text(node.get("pageIndexSha256")))
    if entry.sample_count < 1 or entry.bytes < 1:
        raise ValueError(f"shard {entry.shard_id} has sampleCount {entry.sample_count} and bytes {entry.bytes}")
    if not is_sha256(entry.sha256):
        raise ValueError(f"shard {entry.shard_id} has sha256 {entry.sha256!r}, expected 64 lowercase hex digits")
    if entry.page_index_sha256 is not None and not is_sha256(entry.page_index_sha256):
        raise ValueError(f"shard {entry.shard_id} has pageIndexSha256 {entry.page_index_sha256!r}, expected 64 "
                         f"lowercase hex digits")
    return entry


def is_sha256(text: str) -> bool:
    return isinstance(text, str) and len(text) == 64 and not text.strip("0123456789abcdef")


def _optional_text(value) -> Optional[str]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"expected a string, got {value!r}")
    return value


def check_unique(dataset: str, version: str, shards: Sequence[ShardEntry]) -> None:
    seen: Dict[str, int] = {}
    for s in shards:
        if s.shard_id in seen:
            raise FormatError(f"commit log of {dataset}/{version} is corrupt: shard {s.shard_id} is added by "
                              f"snapshot {seen[s.shard_id]} and again by snapshot {s.snapshot_id}")
        seen[s.shard_id] = s.snapshot_id
