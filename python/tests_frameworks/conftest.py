"""The framework adapters' tests (TensorFlow, JAX, Hugging Face), run with the frameworks venv:

    PY=$(bash scripts/setup-frameworks.sh | tail -n1); PYTHONPATH=python $PY -m pytest -q python/tests_frameworks

JAX sees 4 CPU devices (set before jax is imported), so batches are really split across devices.
"""

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from shardflow import Dataset, DatasetSpec, DirectoryStore, TensorSpec  # noqa: E402
from shardflow.tools.testing import DatasetWriter, rows_for  # noqa: E402

SPEC = DatasetSpec("cams", "v1", (TensorSpec("image", "float32", (3, 4)), TensorSpec("label", "int64", ()),
                                  TensorSpec("mask", "bfloat16", (2,)), TensorSpec("caption", "string", ()),
                                  TensorSpec("boxes", "float32", (None, 4))), "label", "tests", "adapters")
# 9 shards of uneven sizes in 3 snapshots: 101 samples
LAYOUT = [[(0, 12), (1, 7), (2, 23)], [(0, 5), (1, 16)], [(2, 9), (0, 14), (1, 6), (2, 9)]]


def _rows(ids):
    fixed = DatasetSpec("cams", "v1", tuple(t for t in SPEC.tensors if not t.variable), "label")
    rows = rows_for(fixed, ids)
    for row, n in zip(rows, ids):
        row["caption"] = f"sample {n} ü"
        row["boxes"] = np.full((n % 3, 4), n, dtype=np.float32)
    return rows


@pytest.fixture(scope="session")
def bucket(tmp_path_factory):
    root = tmp_path_factory.mktemp("bucket")
    store = DirectoryStore(root)
    writer = DatasetWriter(store, SPEC)
    writer.create()
    n, seq = 0, {}
    for snapshot in LAYOUT:
        shards = []
        for lane, size in snapshot:
            shards.append(writer.put_shard(lane, seq.setdefault(lane, 0), _rows(range(n, n + size)))[0])
            seq[lane] += 1
            n += size
        writer.commit(shards)
    return store


@pytest.fixture
def open_ds(bucket, tmp_path):
    def make(**kwargs):
        kwargs.setdefault("cache_dir", os.fspath(tmp_path / "cache"))
        return Dataset("s3://tests", "cams", "v1", s3=bucket, **kwargs)
    return make


def epoch_ids(ds, rank=0, world_size=1, **options):
    """The per-sample reader's ids: the reference every adapter must match."""
    return [s["sample_id"] for s in ds.samples(rank=rank, world_size=world_size, **options)]
