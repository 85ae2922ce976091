"""Datasets for the random-access tests: every kind of tensor, shards of uneven sizes, contiguous
or chunked and compressed, with small pages so a shard has many; and a store that counts and can
damage the ranged reads."""

import os
from typing import List, Optional, Tuple

import numpy as np

from shardflow import DatasetSpec, DirectoryStore, TensorSpec
from shardflow.tools.testing import DatasetWriter

SPEC = DatasetSpec("mixed", "v1", (
    TensorSpec("image", "float32", (3, 16, 16)), TensorSpec("label", "int64", ()), TensorSpec("valid", "bool", (2,)),
    TensorSpec("caption", "string", ()), TensorSpec("blob", "bytes", ()),
    TensorSpec("boxes", "float32", (None, 4), (64, None))), "label", "tests", "random access")
PAGE = 4096


def row(n: int) -> dict:
    rng = np.random.default_rng(n)
    return {"sample_id": f"s-{n:06d}", "device_id": f"dev-{n % 3}", "produced_at": 1_700_000_000_000 + n,
            "attributes": {"n": str(n)}, "image": rng.standard_normal((3, 16, 16)).astype(np.float32),
            "label": n % 10, "valid": np.array([n % 2 == 0, n % 3 == 0]), "caption": "ü" * (n % 7) + str(n),
            "blob": bytes(rng.integers(0, 256, n % 50, dtype=np.uint8)),
            "boxes": rng.standard_normal((n % 5, 4)).astype(np.float32)}


def write(root, version: str = "v1", sizes=(40, 7, 120, 1, 63, 90), snapshots: int = 2, page_size: Optional[int] = PAGE,
          chunk_rows: Optional[int] = None, compression: str = "none") -> List[int]:
    """Writes ``sizes`` as shards over ``snapshots`` commits; returns the sample numbers in snapshot order."""
    spec = DatasetSpec(SPEC.name, version, SPEC.tensors, SPEC.label_tensor, compression=compression)
    writer = DatasetWriter(DirectoryStore(root), spec, page_size=page_size, chunk_rows=chunk_rows)
    writer.create()
    numbers, n = [], 0
    per_commit = -(-len(sizes) // snapshots)
    for first in range(0, len(sizes), per_commit):
        shards = []
        for k, size in enumerate(sizes[first:first + per_commit]):
            shards.append(writer.put_shard(k % 3, first + k, [row(m) for m in range(n, n + size)])[0])
            numbers += list(range(n, n + size))
            n += size
        writer.commit(shards)
    return numbers


class RangeStore(DirectoryStore):
    """Records each ranged read ``(key, start, length)``; ``damage(key, offset)`` flips that byte in
    every read that covers it (as a corrupt object would)."""

    def __init__(self, root):
        super().__init__(root)
        self.ranges: List[Tuple[str, int, int]] = []
        self.downloads: List[str] = []
        self.damaged: dict = {}

    def damage(self, key: str, offset: int) -> None:
        self.damaged.setdefault(key, set()).add(offset)

    def read_into(self, key, out, start=0):
        self.ranges.append((key, start, len(out)))
        size = super().read_into(key, out, start)
        for offset in self.damaged.get(key, ()):
            if start <= offset < start + len(out):
                out[offset - start] ^= 0xFF
        return size

    def download(self, key, out):
        self.downloads.append(key)
        return super().download(key, out)

    def shard_ranges(self) -> List[Tuple[str, int, int]]:
        return [r for r in self.ranges if r[0].endswith(".h5")]


def same_sample(got: dict, want: dict) -> None:
    assert list(got) == list(want), (list(got), list(want))
    for key, value in want.items():
        if isinstance(value, np.ndarray):
            assert isinstance(got[key], np.ndarray) and got[key].dtype == value.dtype, key
            assert got[key].shape == value.shape and np.array_equal(got[key], value), key
        else:
            assert got[key] == value, key


def bucket(tmp_path_factory, name: str) -> str:
    return os.fspath(tmp_path_factory.mktemp(name))
