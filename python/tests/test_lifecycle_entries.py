"""Entries of kinds other than append (dataset/FORMAT.md, "Entry kinds") and version-2 checkpoints."""

import gzip
import json

import pytest

from conftest import open_dataset
from shardflow.errors import SnapshotNotFoundError
from shardflow.format.layout import checkpoint_key, commit_key
from shardflow.reading.log import CommitLog, entry_to_json, load_snapshot, read_entries


def _put(store, key, data):
    assert store.put_if_absent(key, data)


def _entry(snapshot_id, kind, removed=(), added=(), details=None):
    return {"formatVersion": 2, "snapshotId": snapshot_id, "kind": kind, "committer": "test",
            "committedAt": "2026-03-01T00:00:00Z", "sourceOffsets": {}, "removedShards": list(removed),
            "details": details or {}, "addedShards": list(added)}


def test_should_drop_removed_shards_and_keep_older_snapshots_whole(built):
    four = load_snapshot(built.store, "cams", "v1")
    assert four.snapshot_id == 4
    gone = four.shards[0]
    _put(built.store, commit_key("cams", "v1", 5),
         json.dumps(_entry(5, "delete", removed=[gone.shard_id], details={"reason": "erasure"})).encode())
    _put(built.store, commit_key("cams", "v1", 6),
         json.dumps(_entry(6, "expire", details={"expired": "1-3"})).encode())

    log = CommitLog(built.store, "cams", "v1")
    latest = log.snapshot()
    assert latest.snapshot_id == 6
    assert latest.shards == four.shards[1:]
    assert log.snapshot(4).shards == four.shards, "an older snapshot keeps the removed shard"
    assert log.added_by(5) == () and log.added_by(6) == ()
    with pytest.raises(SnapshotNotFoundError, match="expired"):
        log.snapshot(2)


def test_should_read_a_chain_of_version_two_checkpoints(built):
    four = load_snapshot(built.store, "cams", "v1")
    entries = [entry_to_json(e) for e in read_entries(built.store, "cams", "v1", 1, 4)]
    gone = four.shards[-1]
    fifth = _entry(5, "delete", removed=[gone.shard_id])
    _put(built.store, commit_key("cams", "v1", 5), json.dumps(fifth).encode())

    def segment(snapshot_id, base, nodes):
        return gzip.compress(json.dumps({"formatVersion": 2, "dataset": "cams", "version": "v1",
                                         "snapshotId": snapshot_id, "base": base, "entries": nodes}).encode())
    _put(built.store, checkpoint_key("cams", "v1", 4), segment(4, 0, entries))
    _put(built.store, checkpoint_key("cams", "v1", 5), segment(5, 4, [fifth]))
    built.store.got.clear()

    ds = open_dataset(built)

    assert ds.snapshot_id == 5 and ds.shards == four.shards[:-1]
    assert [k for k in built.store.got if "/log/" in k] == [], "both checkpoints stand for the entries"
