"""Where a cold read's CPU goes, step by step, in one thread over every shard of a dataset: the
figures behind what bounds the fast path against a raw GET (python/THROUGHPUT.md).

    python3 -m shardflow.tools.bench_profile --endpoint http://127.0.0.1:PORT --dataset p3-12kb

Each step is timed (CPU seconds of this process, per GB of shard bytes) on its own: the raw GET
(``get_object()["Body"].read()``), the reader's GET into a new buffer (``read_into``), the same
into a recycled buffer, into a new cache file through its mapping, the SHA-256 check, opening
the shard (HDF5 metadata, columns), and gathering every row into batches of 64 in epoch order.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import mmap
import os
import sys
import tempfile
import time
from typing import Callable, Dict

import numpy as np

from shardflow.reading.batch import BatchBuilder
from shardflow.reading.cachefiles import advise_large_pages
from shardflow.reading.dataset import Dataset
from shardflow.storage.store import S3Settings, S3Store


def _cpu(fn: Callable[[], object], repeat: int = 1) -> float:
    started = time.process_time()
    for _ in range(repeat):
        fn()
    return (time.process_time() - started) / repeat


def profile(args) -> Dict[str, object]:
    store = S3Store(args.bucket, S3Settings(endpoint=args.endpoint).over(S3Settings.from_env()))
    ds = Dataset(f"s3://{args.bucket}", args.dataset, args.version, s3=store, cache_dir=False)
    shards = list(ds.shards)
    size = sum(s.bytes for s in shards)
    client = store.client
    biggest = max(s.bytes for s in shards)
    recycled = bytearray(biggest)
    steps: Dict[str, float] = {}
    steps["raw GET (Body.read)"] = _cpu(lambda: [client.get_object(Bucket=store.bucket, Key=s.object_key)["Body"].read()
                                                for s in shards])
    steps["reader GET into a new buffer"] = _cpu(lambda: [store.read_into(s.object_key, memoryview(bytearray(s.bytes)))
                                                          for s in shards])
    steps["reader GET into a recycled buffer"] = _cpu(lambda: [store.read_into(s.object_key, memoryview(recycled)[:s.bytes])
                                                               for s in shards])
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        def into_files(large: bool):
            for k, s in enumerate(shards):
                path = os.path.join(tmp, f"{k}.h5")
                with open(path, "wb+") as f:
                    os.posix_fallocate(f.fileno(), 0, s.bytes)
                    with mmap.mmap(f.fileno(), s.bytes) as m:
                        if large:
                            advise_large_pages(m)
                        store.read_into(s.object_key, memoryview(m))
                        m.flush() if args.flush else None
                os.unlink(path)
        steps["reader GET into a new cache file (mapped, 4 KiB pages)"] = _cpu(lambda: into_files(False))
        steps["reader GET into a new cache file (mapped, large folios: the reader's way)"] = _cpu(lambda: into_files(True))

        def write_files():
            for k, s in enumerate(shards):
                view = memoryview(recycled)[:s.bytes]
                store.read_into(s.object_key, view)
                path = os.path.join(tmp, f"w{k}.h5")
                with open(path, "wb") as f:
                    f.write(view)
                os.unlink(path)
        steps["reader GET into a recycled buffer + write() to a cache file"] = _cpu(write_files)
    data = {s.shard_id: bytes(store.get(s.object_key)) for s in shards}
    steps["SHA-256"] = _cpu(lambda: [hashlib.sha256(data[s.shard_id]).hexdigest() for s in shards])
    buffers = {k: bytearray(v) for k, v in data.items()}
    opened = {}

    def open_all():
        for s in shards:
            opened[s.shard_id] = ds.open_rows(s, buffers[s.shard_id])
    steps["open (HDF5 metadata, columns)"] = _cpu(open_all)

    def gather():
        for s in shards:
            rows = opened[s.shard_id]
            order = np.random.default_rng(0).permutation(s.sample_count)
            for start in range(0, s.sample_count, args.batch_size):
                part = order[start:start + args.batch_size]
                builder = BatchBuilder(ds.spec, len(part))
                builder.add(rows, np.arange(len(part)), part)
                builder.finish()
    steps[f"gather into batches of {args.batch_size} (random rows)"] = _cpu(gather)
    return {"dataset": args.dataset, "endpoint": args.endpoint, "shards": len(shards), "bytes": size,
            "cpu_s_per_gb": {k: round(v / (size / 1e9), 3) for k, v in steps.items()},
            "load_average_1m": round(os.getloadavg()[0], 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m shardflow.tools.bench_profile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--bucket", default="shardflow")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--version", default="v1")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--tmp", default=None, help="where the cache files go (default: the temp dir)")
    parser.add_argument("--flush", action="store_true", help="msync each mapped file (counts its write-back)")
    args = parser.parse_args(argv)
    print(json.dumps(profile(args), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
