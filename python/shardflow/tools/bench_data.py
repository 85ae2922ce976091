"""Writes a synthetic dataset for the read benchmarks straight into a bucket (no pipeline), in the
layout shard-sink writes (:class:`~shardflow.tools.testing.DatasetWriter`: HDF5 shards, page
indexes, commit log):

    python3 -m shardflow.tools.bench_data --endpoint http://127.0.0.1:PORT --bucket shardflow \\
        --dataset p3-12kb --samples 10000 --sample-bytes 12288 --shard-bytes 12000000

Each sample has one uint8 tensor ``image`` of ``--sample-bytes`` (filled from a seeded generator,
so it does not compress) and an int64 ``label``; shards hold ``--shard-bytes // --sample-bytes``
samples. Shards are uploaded by ``--threads`` threads and committed in one snapshot at the end.
Used for the fast path's figures (``bench_read``) and for the time to first batch of a 10 GB
dataset of 64 MiB shards.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from shardflow.format.spec import DatasetSpec, TensorSpec
from shardflow.storage.store import S3Settings, S3Store
from shardflow.tools.testing import DatasetWriter


def bench_spec(dataset: str, version: str, sample_bytes: int) -> DatasetSpec:
    return DatasetSpec(dataset, version, (TensorSpec("image", "uint8", (sample_bytes,)), TensorSpec("label", "int64", ())),
                       "label", "bench", f"synthetic samples of {sample_bytes} bytes")


def _rows(first: int, count: int, sample_bytes: int, noise: np.ndarray):
    rows = []
    for n in range(first, first + count):
        start = (n * 7919) % (len(noise) - sample_bytes)
        rows.append({"image": noise[start:start + sample_bytes], "label": n % 1000, "sample_id": f"s-{n:09d}",
                     "device_id": f"bench-{n % 16}", "produced_at": 1_700_000_000_000 + n})
    return rows


def write(store: S3Store, dataset: str, version: str, samples: int, sample_bytes: int, shard_bytes: int,
          threads: int, progress=lambda line: None) -> int:
    writer = DatasetWriter(store, bench_spec(dataset, version, sample_bytes))
    writer.create()
    per_shard = max(1, shard_bytes // sample_bytes)
    noise = np.random.default_rng(0).integers(0, 256, sample_bytes + (1 << 20), dtype=np.uint8)
    starts = list(range(0, samples, per_shard))

    def put(k: int):
        first = starts[k]
        rows = _rows(first, min(per_shard, samples - first), sample_bytes, noise)
        return writer.put_shard(k % 4, k // 4, rows)[0]

    started = time.monotonic()
    entries = []
    with ThreadPoolExecutor(threads) as pool:
        for k, entry in enumerate(pool.map(put, range(len(starts)))):
            entries.append(entry)
            if (k + 1) % 10 == 0:
                progress(f"{k + 1}/{len(starts)} shards, {time.monotonic() - started:.0f} s")
    return writer.commit(entries)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m shardflow.tools.bench_data", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", default=None)
    parser.add_argument("--bucket", default="shardflow")
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--version", default="v1")
    parser.add_argument("--samples", type=int, required=True)
    parser.add_argument("--sample-bytes", type=int, default=12288)
    parser.add_argument("--shard-bytes", type=int, default=12_000_000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    store = S3Store(args.bucket, S3Settings(endpoint=args.endpoint).over(S3Settings.from_env()))
    snapshot = write(store, args.dataset, args.version, args.samples, args.sample_bytes, args.shard_bytes,
                     args.threads, lambda line: print(line, file=sys.stderr))
    print(f"{args.dataset}/{args.version} snapshot {snapshot}: {args.samples} samples of {args.sample_bytes} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
