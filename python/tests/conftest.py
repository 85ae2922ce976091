"""A small dataset written in the FORMAT.md layout into a directory-backed object store.

DirectoryStore rather than a dict in memory: DataLoader worker processes then see commits made
after they started, as they would with S3.
"""

import os
from dataclasses import dataclass, field
from typing import Dict, List

import pytest

from shardflow import DatasetSpec, DirectoryStore, TensorSpec
from shardflow.tools.testing import DatasetWriter, rows_for

SPEC = DatasetSpec("cams", "v1", (TensorSpec("image", "float32", (3, 4, 4)), TensorSpec("label", "int64", ()),
                                  TensorSpec("valid", "bool", (2,))), "label", "tests", "unit-test dataset")


class RecordingStore(DirectoryStore):
    """Remembers every prefix listed, so tests can check that readers never list ``shards/``."""

    def __init__(self, root):
        super().__init__(root)
        self.listed: List[str] = []
        self.downloaded: List[str] = []
        self.got: List[str] = []

    def list_keys(self, prefix, start_after=None, limit=None):
        self.listed.append(prefix)
        return super().list_keys(prefix, start_after, limit)

    def get(self, key):
        self.got.append(key)
        return super().get(key)

    def download(self, key, out):
        self.downloaded.append(key)
        return super().download(key, out)

    def read_into(self, key, out, start=0):
        if start == 0:  # one download, whether in one GET or in ranges
            self.downloaded.append(key)
        return super().read_into(key, out, start)


@dataclass
class Built:
    store: RecordingStore
    writer: DatasetWriter
    ids: List[str]
    next_n: int
    cache_dir: str
    sequences: Dict[int, int] = field(default_factory=dict)

    def add_snapshot(self, lanes_and_sizes):
        """Commits one snapshot of new shards ``[(lane, size), ...]``; returns the new sample ids."""
        shards = []
        new_ids = []
        for lane, size in lanes_and_sizes:
            rows = rows_for(SPEC, range(self.next_n, self.next_n + size))
            self.next_n += size
            seq = self.sequences.get(lane, 0)
            self.sequences[lane] = seq + 1
            shards.append(self.writer.put_shard(lane, seq, rows)[0])
            new_ids += [r["sample_id"] for r in rows]
        self.writer.commit(shards)
        self.ids += new_ids
        return new_ids


# 11 shards of uneven sizes (5..23 rows) in 4 snapshots, 3 lanes: 151 samples.
LAYOUT = [[(0, 12), (1, 7), (2, 23)], [(0, 5), (1, 16)], [(2, 9), (0, 14), (1, 20)], [(2, 11), (0, 18), (1, 16)]]


@pytest.fixture
def built(tmp_path) -> Built:
    store = RecordingStore(tmp_path / "bucket")
    writer = DatasetWriter(store, SPEC)
    writer.create()
    b = Built(store, writer, [], 0, os.fspath(tmp_path / "cache"))
    for snapshot in LAYOUT:
        b.add_snapshot(snapshot)
    return b


def open_dataset(b: Built, **kwargs):
    from shardflow import Dataset

    kwargs.setdefault("cache_dir", b.cache_dir)
    return Dataset("s3://unit-tests", "cams", "v1", s3=b.store, **kwargs)


def assert_same_batch(got, want):
    """The same keys in the same order, tensors of the same dtype and values, everything else equal."""
    import torch

    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, torch.Tensor):
            assert got[key].dtype == value.dtype and torch.equal(got[key], value), key
        else:
            assert got[key] == value, key


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    """A real MinIO (or S3Proxy) on 127.0.0.1 for the session, with an empty bucket."""
    import s3server

    server = s3server.start(os.fspath(tmp_path_factory.mktemp("s3-server")))
    if server is None:
        pytest.skip("neither MinIO nor S3Proxy is installed (scripts/fetch-tools.sh puts them in ~/.cache/shardflow/tools)")
    yield server
    server.stop()
