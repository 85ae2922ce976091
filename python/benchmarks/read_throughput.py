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
import statistics
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
    """(samples, seconds to the first batch, seconds in all)."""
    from torch.utils.data import DataLoader

    from shardflow.torch import ShardflowIterableDataset

    data = ShardflowIterableDataset(ds, seed=0, shuffle_buffer=shuffle_buffer, rank=0, world_size=1)
    started = time.perf_counter()
    first = None
    n = 0
    for batch in DataLoader(data, batch_size=64, num_workers=workers):
        first = first if first is not None else time.perf_counter() - started
        n += len(batch["sample_id"])
    return n, first, time.perf_counter() - started


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", default="s3://shardflow")
    parser.add_argument("--dataset", default="demo")
    parser.add_argument("--version", default="v1")
    parser.add_argument("--snapshot", type=int, default=None)
    parser.add_argument("--shuffle-buffer", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5, help="repeat each measurement; medians are printed")
    parser.add_argument("--torch-workers", type=int, default=0, help="also time a DataLoader with this many workers")
    args = parser.parse_args(argv)

    root = tempfile.mkdtemp(prefix="shardflow-bench-")
    try:
        def fresh(name):
            return Dataset(args.uri, args.dataset, args.version, args.snapshot, cache_dir=os.path.join(root, name))

        ds = fresh("warm")
        size = ds.snapshot.bytes
        print(f"{args.dataset}/{args.version} snapshot {ds.snapshot_id}: {len(ds.shards)} shards, {len(ds)} samples, "
              f"{size / MIB:.1f} MiB at {ds.store.settings.endpoint or 'AWS'}; median of {args.rounds} rounds")
        raw_get(ds)  # warm-up: server and OS caches
        read_all(ds, args.shuffle_buffer)  # fills the warm cache
        times = {"raw": [], "cold": [], "warm": [], "torch": [], "torch_first": []}
        for r in range(args.rounds):
            got, s = timed(lambda: raw_get(ds))
            assert got == size, (got, size)
            times["raw"].append(s)
            cold = fresh(f"cold-{r}")
            n, s = timed(lambda: read_all(cold, args.shuffle_buffer))
            assert n == len(ds)
            times["cold"].append(s)
            n, s = timed(lambda: read_all(ds, args.shuffle_buffer))
            times["warm"].append(s)
            if args.torch_workers:
                n, first_s, s = read_torch(fresh(f"torch-{r}"), args.torch_workers, args.shuffle_buffer)
                assert n == len(ds)
                times["torch"].append(s)
                times["torch_first"].append(first_s)
        med = {k: statistics.median(v) for k, v in times.items() if v}
        raw = size / MIB / med["raw"]
        print(f"raw boto3 GET              {raw:8.1f} MiB/s  ({med['raw']:.3f} s)")
        for key, label in (("cold", "shardflow, cold cache"), ("warm", "shardflow, warm cache"),
                           ("torch", f"DataLoader x{args.torch_workers}, cold")):
            if key in med:
                rate = size / MIB / med[key]
                extra = f", {med['torch_first']:.2f} s to the first batch" if key == "torch" else ""
                print(f"{label:26} {rate:8.1f} MiB/s  ({med[key]:.3f} s, {len(ds) / med[key]:,.0f} samples/s{extra})"
                      f"  = {rate / raw:.2f} x raw")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
