"""Read throughput of the shardflow reader against raw boto3 GETs of the same shard objects.

    bin/shardflow quickstart --keep-running        # or any stack with a dataset
    export SHARDFLOW_S3_ENDPOINT=http://127.0.0.1:PORT SHARDFLOW_S3_ACCESS_KEY=shardflow \\
           SHARDFLOW_S3_SECRET_KEY=shardflow-secret
    python python/benchmarks/read_throughput.py [--dataset demo --version v1] [--torch-workers 2]

In one run, over every shard of the pinned snapshot:
  1. raw boto3: ``get_object(...)["Body"].read()`` of each shard (after one untimed warm-up pass,
     so both sides read from a warm server);
  2. shardflow, cold cache: every sample through ``Dataset.samples()`` into a fresh cache directory
     (download, SHA-256 check, cache write, HDF5 decode, per-sample dicts, shuffle buffer);
  3. shardflow, warm cache: the same again, shards read from the local cache (still verified);
  4. optionally a torch DataLoader with N workers over a fresh cache, batches of 64.
Throughput is shard bytes per second (MiB/s), plus samples per second for the reader.
"""

import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from shardflow import Dataset  # noqa: E402

MIB = 1 << 20


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - started


def raw_get(ds):
    client = ds.store.client
    total = 0
    for shard in ds.shards:
        total += len(client.get_object(Bucket=ds.store.bucket, Key=shard.object_key)["Body"].read())
    return total


def read_all(ds, shuffle_buffer):
    n = 0
    for _ in ds.samples(seed=0, shuffle_buffer=shuffle_buffer):
        n += 1
    return n


def read_torch(ds, workers, shuffle_buffer):
    from torch.utils.data import DataLoader

    from shardflow.torch import ShardflowIterableDataset

    data = ShardflowIterableDataset(ds, seed=0, shuffle_buffer=shuffle_buffer, rank=0, world_size=1)
    return sum(len(batch["sample_id"]) for batch in DataLoader(data, batch_size=64, num_workers=workers))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default="s3://shardflow")
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--version", default="v1")
    parser.add_argument("--snapshot", type=int, default=None)
    parser.add_argument("--shuffle-buffer", type=int, default=1000)
    parser.add_argument("--torch-workers", type=int, default=0, help="also time a DataLoader with this many workers")
    args = parser.parse_args(argv)

    root = tempfile.mkdtemp(prefix="shardflow-bench-")
    try:
        ds = Dataset(args.uri, args.dataset, args.version, args.snapshot, cache_dir=os.path.join(root, "a"))
        size = ds.snapshot.bytes
        print(f"{args.dataset}/{args.version} snapshot {ds.snapshot_id}: {len(ds.shards)} shards, {len(ds)} samples, "
              f"{size / MIB:.1f} MiB at {ds.store.settings.endpoint or 'AWS'}")
        raw_get(ds)  # warm-up: server and OS caches
        got, raw_s = timed(lambda: raw_get(ds))
        assert got == size, (got, size)
        n, cold_s = timed(lambda: read_all(ds, args.shuffle_buffer))
        assert n == len(ds)
        _, warm_s = timed(lambda: read_all(ds, args.shuffle_buffer))
        raw = size / MIB / raw_s
        cold = size / MIB / cold_s
        warm = size / MIB / warm_s
        print(f"raw boto3 GET             {raw:8.1f} MiB/s  ({raw_s:.2f} s)")
        print(f"shardflow, cold cache     {cold:8.1f} MiB/s  ({cold_s:.2f} s, {n / cold_s:,.0f} samples/s)"
              f"  = {cold / raw:.2f} x raw")
        print(f"shardflow, warm cache     {warm:8.1f} MiB/s  ({warm_s:.2f} s, {n / warm_s:,.0f} samples/s)"
              f"  = {warm / raw:.2f} x raw")
        if args.torch_workers:
            fresh = Dataset(args.uri, args.dataset, args.version, ds.snapshot_id, cache_dir=os.path.join(root, "b"))
            n, torch_s = timed(lambda: read_torch(fresh, args.torch_workers, args.shuffle_buffer))
            assert n == len(ds)
            t = size / MIB / torch_s
            print(f"torch DataLoader x{args.torch_workers}, cold {t:8.1f} MiB/s  ({torch_s:.2f} s, "
                  f"{n / torch_s:,.0f} samples/s)  = {t / raw:.2f} x raw")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
