"""The fast path's figures (P3): the batch path against a raw parallel GET of the same shard objects,
and against the peers on the same samples, in one run:

    python3 -m shardflow.tools.bench_fast --endpoint http://127.0.0.1:PORT --dataset p3-12kb [--peers] [--json]
    python3 -m shardflow.tools.bench_fast --endpoint ... --dataset big --ttfb-only   # time to first batch

Per round (``--rounds``, default 2), back to back: raw GET of every shard object (``--threads`` in
flight, default the reader's ``prefetch``); ``Dataset.batches`` into an empty cache (cold), again
from that cache (warm), and with ``cache_dir=False``; ``ShardflowDataLoader`` with 0, 2 and 4
workers (fast path, empty cache). A ratio is the median over rounds of raw time / path time of the
same round. ``--peers`` adds WebDataset and MosaicML Streaming (:mod:`shardflow.tools.bench_peers`)
on the same samples, each round beside its own raw GET. Time to first batch: a new ``Dataset``
(spec and log read) and its first batch, empty cache. CPU seconds per GB of this process (and its
DataLoader workers) show what each path costs whatever else the machine runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List

from shardflow.reading.dataset import Dataset
from shardflow.reading.fastpath import DEFAULT_THREADS
from shardflow.reading.fetch import DEFAULT_PREFETCH
from shardflow.storage.store import S3Settings, S3Store
from shardflow.tools.bench_read import _cpu_seconds


def raw_get(store: S3Store, keys: List[str], threads: int) -> int:
    client = store.client
    with ThreadPoolExecutor(threads) as pool:
        return sum(pool.map(lambda k: len(client.get_object(Bucket=store.bucket, Key=k)["Body"].read()), keys))


def read_batches(ds: Dataset, args) -> int:
    return sum(len(b) for b in ds.batches(args.batch_size, prefetch=args.prefetch, threads=args.assemble_threads))


def read_loader(ds: Dataset, args, workers: int) -> int:
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    data = ShardflowIterableDataset(ds, prefetch=args.prefetch, threads=args.assemble_threads)
    return sum(len(b["sample_id"]) for b in ShardflowDataLoader(data, batch_size=args.batch_size, num_workers=workers))


def first_batch_seconds(open_ds: Callable[[], Dataset], args) -> Dict[str, float]:
    started = time.perf_counter()
    ds = open_ds()
    opened = time.perf_counter()
    it = ds.batches(args.batch_size, prefetch=args.prefetch, threads=args.assemble_threads)
    next(it)
    done = time.perf_counter()
    it.close()
    return {"open_s": round(opened - started, 3), "first_batch_s": round(done - opened, 3),
            "total_s": round(done - started, 3), "shards": len(ds.shards), "bytes": ds.snapshot.bytes}


def measure(args, progress: Callable[[str], None]) -> Dict[str, object]:
    store = S3Store(args.bucket, S3Settings(endpoint=args.endpoint).over(S3Settings.from_env()))
    root = tempfile.mkdtemp(prefix="shardflow-bench-fast-")
    try:
        def fresh(name, cache=True) -> Dataset:
            return Dataset(f"s3://{args.bucket}", args.dataset, args.version, s3=store,
                           cache_dir=os.path.join(root, name) if cache else False)

        ttfb = [first_batch_seconds(lambda: fresh(f"ttfb-{r}"), args) for r in range(args.rounds)]
        progress(f"time to first batch: {[t['total_s'] for t in ttfb]} s")
        if args.ttfb_only:
            return {"dataset": args.dataset, "endpoint": args.endpoint, "time_to_first_batch": ttfb}
        pinned = fresh("meta")
        keys, size, samples = [s.object_key for s in pinned.shards], pinned.snapshot.bytes, len(pinned)
        progress(f"{args.dataset}: {len(keys)} shards, {samples} samples, {size / 1e6:.1f} MB at {args.endpoint}")
        if raw_get(store, keys, args.threads) != size:
            raise SystemExit("the shard objects do not add up to the snapshot's bytes")
        import shardflow.integrations.torch  # noqa: F401  (loaded before any clock, as in a trainer)

        paths: Dict[str, Callable[[Dataset], int]] = {"batch_cold": lambda d: read_batches(d, args)}
        paths["batch_warm"] = paths["batch_cold"]
        paths["batch_no_cache"] = paths["batch_cold"]
        for w in args.workers:
            paths[f"dataloader_{w}_workers"] = (lambda w: lambda d: read_loader(d, args, w))(w)
        runs: Dict[str, List[float]] = {"raw": [], **{p: [] for p in paths}}
        cpu: Dict[str, List[float]] = {p: [] for p in runs}
        for r in range(args.rounds):
            cold = fresh(f"cold-{r}")
            datasets = {"batch_cold": cold, "batch_warm": cold, "batch_no_cache": fresh("none", cache=False)}
            raw_started, raw_cpu = time.perf_counter(), _cpu_seconds()
            raw_get(store, keys, args.threads)
            runs["raw"].append(time.perf_counter() - raw_started)
            cpu["raw"].append(_cpu_seconds() - raw_cpu)
            for name, fn in paths.items():
                ds = datasets.get(name) or fresh(f"{name}-{r}")
                started, cpu_started = time.perf_counter(), _cpu_seconds()
                got = fn(ds)
                runs[name].append(time.perf_counter() - started)
                cpu[name].append(_cpu_seconds() - cpu_started)
                if got != samples:
                    raise SystemExit(f"{name} read {got} samples of {samples}")
            progress(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in runs.items()))
        peers = {}
        if args.peers:
            from shardflow.tools.bench_peers import measure_peers

            def timed_raw():
                started = time.perf_counter()
                raw_get(store, keys, args.threads)
                return time.perf_counter() - started
            peers = measure_peers(pinned, store, args.endpoint, args.batch_size, args.rounds, timed_raw, progress)
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def figures(times: Dict[str, List[float]], name: str):
        ratio = statistics.median(a / b for a, b in zip(times["raw"], times[name]))
        return {"mb_s": round(size / 1e6 / statistics.median(times[name]), 1), "ratio_to_raw": round(ratio, 3)}

    result = {"dataset": args.dataset, "endpoint": args.endpoint, "shards": len(keys), "samples": samples,
              "bytes": size, "threads": args.threads, "prefetch": args.prefetch, "batch_size": args.batch_size,
              "assemble_threads": args.assemble_threads, "rounds": args.rounds,
              "raw_parallel_get_mb_s": round(size / 1e6 / statistics.median(runs["raw"]), 1),
              "paths": {name: figures(runs, name) for name in paths},
              "cpu_s_per_gb": {k: round(statistics.median(v) / (size / 1e9), 2) for k, v in cpu.items()},
              "time_to_first_batch": ttfb, "load_average_1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()}
    if peers:
        result["peers"] = {name: figures(peers, name) for name in ("webdataset", "mosaic_streaming")}
        result["peers_raw_mb_s"] = round(size / 1e6 / statistics.median(peers["raw"]), 1)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m shardflow.tools.bench_fast", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--bucket", default=os.environ.get("SHARDFLOW_S3_BUCKET", "shardflow"))
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--version", default="v1")
    parser.add_argument("--prefetch", type=int, default=DEFAULT_PREFETCH)
    parser.add_argument("--threads", type=int, default=None, help="raw GETs in flight (default: --prefetch)")
    parser.add_argument("--assemble-threads", type=int, default=DEFAULT_THREADS)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--workers", type=int, nargs="*", default=[0, 2, 4])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--peers", action="store_true", help="also WebDataset and MosaicML Streaming")
    parser.add_argument("--ttfb-only", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.threads = args.threads or args.prefetch
    result = measure(args, lambda line: print(line, file=sys.stderr))
    print(json.dumps(result, indent=None if args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
