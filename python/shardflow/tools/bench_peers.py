"""The peers of the read benchmark on the same samples, from the same S3 server: WebDataset (tar
shards of ``.npy`` members, read through presigned URLs with its own ``pipe:curl`` opener) and
MosaicML Streaming (MDS shards, ``StreamingDataset`` with its own local cache, iterated in one
process). Both are written from the dataset's own samples into a temporary prefix of the bucket
(removed at the end); each is timed over every sample, batched by 64, with a cold cache.
Needs the bench venv (``scripts/setup-frameworks.sh --bench``)."""

from __future__ import annotations

import io
import os
import sys
import tarfile
import tempfile
import time
import types
from typing import Callable, Dict, List

import numpy as np

from shardflow.reading.dataset import Dataset
from shardflow.storage.s3 import S3Store


def _stub_transformers() -> None:
    """Streaming 0.7's package imports its text and vision datasets (``transformers``,
    ``torchvision``), and ``streaming.base`` imports ``transformers`` for its own DataLoader's type
    checks only. Neither is used here: ``streaming.base`` (the dataset and the MDS writer) is loaded
    without the package's ``__init__``, with a two-class stand-in for ``transformers``."""
    if "transformers" not in sys.modules:
        stub = types.ModuleType("transformers")
        stub.BatchEncoding = type("BatchEncoding", (dict,), {})
        stub.BatchFeature = type("BatchFeature", (dict,), {})
        sys.modules["transformers"] = stub
    if "streaming" not in sys.modules:
        import importlib.util

        found = importlib.util.find_spec("streaming")
        package = types.ModuleType("streaming")
        package.__path__ = list(found.submodule_search_locations)
        sys.modules["streaming"] = package


def _npy(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array, allow_pickle=False)
    return out.getvalue()


def write_webdataset(ds: Dataset, store: S3Store, prefix: str, per_tar: int) -> List[str]:
    """One tar per ``per_tar`` samples (as many as a shard holds); returns the object keys."""
    keys, members, n = [], io.BytesIO(), 0
    tar = tarfile.open(fileobj=members, mode="w")
    names = [t.name for t in ds.spec.tensors]

    def close():
        nonlocal tar, members
        tar.close()
        key = f"{prefix}/wds-{len(keys):05d}.tar"
        store.client.put_object(Bucket=store.bucket, Key=key, Body=members.getvalue())
        keys.append(key)
        members = io.BytesIO()
        tar = tarfile.open(fileobj=members, mode="w")

    for sample in ds.samples(shuffle_shards=False, shuffle_block=0):
        for name in names:
            data = _npy(np.asarray(sample[name]))
            info = tarfile.TarInfo(f"{sample['sample_id']}.{name}.npy")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        n += 1
        if n % per_tar == 0:
            close()
    if n % per_tar:
        close()
    return keys


def read_webdataset(store: S3Store, keys: List[str], batch_size: int) -> int:
    import webdataset as wds

    urls = [f"pipe:curl -s -f '{store.client.generate_presigned_url('get_object', Params={'Bucket': store.bucket, 'Key': k}, ExpiresIn=3600)}'"
            for k in keys]
    pipeline = wds.WebDataset(urls, shardshuffle=False).decode().batched(batch_size, partial=True)
    return sum(len(batch["__key__"]) for batch in pipeline)


def write_mds(ds: Dataset, store: S3Store, prefix: str, shard_bytes: int) -> str:
    _stub_transformers()
    from streaming.base import MDSWriter

    columns = {t.name: "ndarray" if t.shape else "int" for t in ds.spec.tensors}
    with tempfile.TemporaryDirectory() as out:
        with MDSWriter(out=out, columns=columns, size_limit=shard_bytes) as writer:
            for sample in ds.samples(shuffle_shards=False, shuffle_block=0):
                writer.write({t.name: (np.asarray(sample[t.name]) if t.shape else int(sample[t.name]))
                              for t in ds.spec.tensors})
        for name in os.listdir(out):
            with open(os.path.join(out, name), "rb") as f:
                store.client.put_object(Bucket=store.bucket, Key=f"{prefix}/mds/{name}", Body=f.read())
    return f"s3://{store.bucket}/{prefix}/mds"


def read_mds(remote: str, endpoint: str, batch_size: int) -> int:
    _stub_transformers()
    os.environ["S3_ENDPOINT_URL"] = endpoint
    from streaming.base import StreamingDataset
    from streaming.base.util import clean_stale_shared_memory

    clean_stale_shared_memory()
    with tempfile.TemporaryDirectory() as local:
        data = StreamingDataset(remote=remote, local=local, shuffle=False, batch_size=batch_size)
        n, batch = 0, []
        for sample in data:
            batch.append(sample)
            if len(batch) == batch_size:
                n += len(batch)
                batch = []
        return n + len(batch)


def measure_peers(ds: Dataset, store: S3Store, endpoint: str, batch_size: int, rounds: int,
                  raw: Callable[[], float], progress: Callable[[str], None]) -> Dict[str, List[float]]:
    """Per round: (raw GET seconds, webdataset seconds, streaming seconds) of the same samples."""
    prefix = f"bench-peers-{os.getpid()}-{int(time.time())}"
    per_tar = max(1, len(ds) // max(1, len(ds.shards)))
    runs: Dict[str, List[float]] = {"raw": [], "webdataset": [], "mosaic_streaming": []}
    try:
        keys = write_webdataset(ds, store, prefix, per_tar)
        remote = write_mds(ds, store, prefix, max(1, ds.snapshot.bytes // max(1, len(ds.shards))))
        for r in range(rounds):
            runs["raw"].append(raw())
            started = time.perf_counter()
            if read_webdataset(store, keys, batch_size) != len(ds):
                raise SystemExit("WebDataset read another number of samples")
            runs["webdataset"].append(time.perf_counter() - started)
            started = time.perf_counter()
            if read_mds(remote, endpoint, batch_size) != len(ds):
                raise SystemExit("Streaming read another number of samples")
            runs["mosaic_streaming"].append(time.perf_counter() - started)
            progress(f"peers round {r + 1}: raw {runs['raw'][-1]:.2f} s, webdataset {runs['webdataset'][-1]:.2f} s, "
                     f"streaming {runs['mosaic_streaming'][-1]:.2f} s")
    finally:
        for key in store.list_keys(prefix + "/"):
            store.client.delete_object(Bucket=store.bucket, Key=key)
    return runs
