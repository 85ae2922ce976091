"""Commit-log checkpoints: ``checkpoints/<descending id>-<id>.json.gz`` holding entries 1..id."""

import gzip
import logging

from conftest import open_dataset
from shardflow import load_snapshot
from shardflow.format.layout import checkpoint_id_of, checkpoint_key, commit_key
from shardflow.reading.log import read_entries
from shardflow.tools.testing import write_checkpoint


def plain_log_shards(store, last):
    return tuple(s for e in read_entries(store, "cams", "v1", 1, last) for s in e.added_shards)


def test_should_name_checkpoints_so_that_they_sort_newest_first():
    key = checkpoint_key("cams", "v1", 40)
    assert key == "datasets/cams/v1/checkpoints/99999999999999999959-00000000000000000040.json.gz"
    assert checkpoint_key("cams", "v1", 41) < key < checkpoint_key("cams", "v1", 39)
    assert checkpoint_id_of("cams", "v1", key) == 40
    assert checkpoint_id_of("cams", "v1", key.replace("9959", "9958")) is None, "the two ids must agree"


def test_should_start_from_the_newest_checkpoint_and_read_only_the_entries_after_it(built):
    write_checkpoint(built.store, "cams", "v1", 2)
    write_checkpoint(built.store, "cams", "v1", 3)
    expected = plain_log_shards(built.store, 4)
    built.store.got.clear()
    ds = open_dataset(built)
    assert ds.snapshot_id == 4 and ds.shards == expected
    read = [k for k in built.store.got if "/log/" in k]
    assert read == [commit_key("cams", "v1", 4)], read
    assert [k for k in built.store.got if "/checkpoints/" in k] == [checkpoint_key("cams", "v1", 3)]


def test_should_pin_a_snapshot_older_than_the_newest_checkpoint_from_an_older_one(built):
    write_checkpoint(built.store, "cams", "v1", 1)
    write_checkpoint(built.store, "cams", "v1", 4)
    expected = plain_log_shards(built.store, 3)
    built.store.got.clear()
    ds = open_dataset(built, snapshot=3)
    assert ds.shards == expected
    assert [s.snapshot_id for s in ds.shards] == [1, 1, 1, 2, 2, 3, 3, 3]
    assert checkpoint_key("cams", "v1", 1) in built.store.got
    assert commit_key("cams", "v1", 1) not in built.store.got


def test_should_ignore_an_unusable_checkpoint_and_read_the_entries(built, caplog):
    built.store.put_if_absent(checkpoint_key("cams", "v1", 3), gzip.compress(b'{"formatVersion": 1, "dataset": "x"}'))
    with caplog.at_level(logging.WARNING):
        snapshot = load_snapshot(built.store, "cams", "v1")
    assert snapshot.snapshot_id == 4 and snapshot.shards == plain_log_shards(built.store, 4)
    assert "unusable checkpoint" in caplog.text


def test_should_jump_to_a_checkpoint_when_far_behind_while_following(built):
    ds = open_dataset(built)
    for _ in range(34):
        built.add_snapshot([(0, 1)])
    write_checkpoint(built.store, "cams", "v1", 36)
    expected = plain_log_shards(built.store, 38)
    built.store.got.clear()
    assert ds.refresh() == list(range(5, 39))
    assert ds.shards == expected
    assert sorted(k for k in built.store.got if "/log/" in k) == [commit_key("cams", "v1", 37),
                                                                  commit_key("cams", "v1", 38)]
