"""Read throughput of the reader against a raw parallel GET of the same shard objects (figure P3).

    python3 -m shardflow.tools.bench_read --endpoint http://127.0.0.1:PORT --bucket shardflow \\
        --dataset demo --version v1 [--json]

S3 credentials come from the variables the package reads (``SHARDFLOW_S3_ACCESS_KEY``,
``SHARDFLOW_S3_SECRET_KEY`` or ``SHARDFLOW_S3_SECRET_KEY_FILE``, else ``AWS_*``). In one run, over
every shard of the pinned snapshot:

1. raw: plain boto3 ``get_object(...)["Body"].read()`` of every shard object, ``--threads`` at a
   time (default: the reader's prefetch depth, so both sides keep the same number of shards in
   flight), after one untimed pass so the server's caches are as warm for both sides;
2. reader, cold: every sample through ``Dataset.samples()`` into an empty cache directory
   (download, SHA-256 check, cache write, HDF5 open, the rows taken, per-sample dicts); then the
   same with ``cache_dir=False`` (no cache file written); each ``Dataset`` is opened (spec and
   log read) before its clock starts;
3. DataLoader: every sample through ``ShardflowDataLoader`` with ``--workers`` workers (for each of
   ``--ranks`` ranks, one after another, sharing the cache as ranks of one machine do) and
   batches of ``--batch-size``, also into an empty cache (worker start-up included).

Throughput is shard bytes (10^6 per MB) per second; CPU seconds per GB (this process and its
DataLoader workers) show what each path costs whatever else the machine runs. Each round runs the three back to back; a
ratio is the median over rounds of (raw GET time / reader time) of the same round, a rate the
shard bytes over the median time (``--rounds N``, default 3).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List

from shardflow.reading.dataset import Dataset
from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD
from shardflow.reading.options import DEFAULT_SHUFFLE_BLOCK
from shardflow.storage.store import S3Settings, S3Store


def _raw_parallel_get(store: S3Store, keys: List[str], threads: int) -> int:
    client = store.client

    def get(key: str) -> int:
        return len(client.get_object(Bucket=store.bucket, Key=key)["Body"].read())

    with ThreadPoolExecutor(threads, thread_name_prefix="raw-get") as pool:
        return sum(pool.map(get, keys))


def _read_all(ds: Dataset, args) -> int:
    n = 0
    for _ in ds.samples(seed=0, shuffle_block=args.shuffle_block, prefetch=args.prefetch,
                        range_size=args.range_size, range_threshold=args.range_threshold):
        n += 1
    return n


def _read_dataloader(ds: Dataset, args) -> int:
    """Every rank's share of the epoch, rank after rank, all through one cache (as ranks of one machine)."""
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    n = 0
    for rank in range(args.ranks):
        data = ShardflowIterableDataset(ds, seed=0, shuffle_block=args.shuffle_block, rank=rank,
                                        world_size=args.ranks, prefetch=args.prefetch, range_size=args.range_size,
                                        range_threshold=args.range_threshold)
        for batch in ShardflowDataLoader(data, batch_size=args.batch_size, num_workers=args.workers):
            n += len(batch["sample_id"])
    return n


def _cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (DataLoader workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _timed(fn: Callable[[], int], cpu: List[float]):
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    result = fn()
    cpu.append(_cpu_seconds() - cpu_started)
    return result, time.perf_counter() - started


def measure(args, progress: Callable[[str], None]) -> Dict[str, object]:
    settings = S3Settings(endpoint=args.endpoint).over(S3Settings.from_env())
    store = S3Store(args.bucket, settings)
    root = tempfile.mkdtemp(prefix="shardflow-bench-read-")
    try:
        def fresh(name: str, cache: bool = True) -> Dataset:
            return Dataset(f"s3://{args.bucket}", args.dataset, args.version, args.snapshot, s3=store,
                           cache_dir=os.path.join(root, name) if cache else False)

        pinned = fresh("meta")
        keys = [s.object_key for s in pinned.shards]
        size = pinned.snapshot.bytes
        samples = len(pinned)
        if not keys:
            raise SystemExit(f"{args.dataset}/{args.version} snapshot {pinned.snapshot_id} has no shards to read")
        progress(f"{args.dataset}/{args.version} snapshot {pinned.snapshot_id}: {len(keys)} shards, {samples} "
                 f"samples, {size / 1e6:.1f} MB at {settings.endpoint or 'AWS'}")
        if _raw_parallel_get(store, keys, args.threads) != size:
            raise SystemExit("the shard objects do not add up to the snapshot's bytes")
        if args.workers > 0:
            # imported once, before any clock: a trainer has torch loaded
            import shardflow.integrations.torch  # noqa: F401
        runs: Dict[str, List[float]] = {"raw": [], "reader": [], "nocache": [], "dataloader": []}
        cpu: Dict[str, List[float]] = {name: [] for name in runs}
        for r in range(args.rounds):
            # Opened before the clock starts: reading the spec and the log is not what is measured.
            cold, uncached, loaded = fresh(f"reader-{r}"), fresh("none", cache=False), fresh(f"dataloader-{r}")
            _, seconds = _timed(lambda: _raw_parallel_get(store, keys, args.threads), cpu["raw"])
            runs["raw"].append(seconds)
            got, seconds = _timed(lambda: _read_all(cold, args), cpu["reader"])
            _require(got, samples, "reader")
            runs["reader"].append(seconds)
            got, seconds = _timed(lambda: _read_all(uncached, args), cpu["nocache"])
            _require(got, samples, "reader without a cache")
            runs["nocache"].append(seconds)
            if args.workers > 0:
                got, seconds = _timed(lambda: _read_dataloader(loaded, args), cpu["dataloader"])
                _require(got, args.ranks * -(-samples // args.ranks), "DataLoader (with its padding)")
                runs["dataloader"].append(seconds)
            progress(f"round {r + 1}/{args.rounds}: raw {runs['raw'][-1]:.3f} s, reader {runs['reader'][-1]:.3f} s, "
                     f"without cache {runs['nocache'][-1]:.3f} s"
                     + (f", DataLoader {runs['dataloader'][-1]:.3f} s" if runs["dataloader"] else ""))
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def rate(name: str):
        return round(size / 1e6 / statistics.median(runs[name]), 1) if runs[name] else None

    def ratio(name: str):
        # Per round: each figure over the raw GET measured just before it, then the median, so a
        # load that drifts between rounds (a shared machine) moves both sides of a ratio alike.
        if not runs[name]:
            return None
        return round(statistics.median(r / s for r, s in zip(runs["raw"], runs[name])), 3)

    def cpu_per_gb(name: str):
        return round(statistics.median(cpu[name]) / (size / 1e9), 2) if cpu[name] else None

    raw = rate("raw")
    reader = rate("reader")
    loader = rate("dataloader")
    return {
        "endpoint": settings.endpoint, "bucket": args.bucket, "dataset": args.dataset, "version": args.version,
        "snapshot": pinned.snapshot_id, "shards": len(keys), "bytes": size, "samples": samples,
        "threads": args.threads, "prefetch": args.prefetch, "range_size": args.range_size,
        "range_threshold": args.range_threshold, "shuffle_block": args.shuffle_block, "rounds": args.rounds,
        "raw_parallel_get_mb_s": raw,
        "reader_cold_mb_s": reader,
        "reader_cold_samples_s": round(samples / statistics.median(runs["reader"])),
        "reader_ratio": ratio("reader"),
        "reader_no_cache_mb_s": rate("nocache"),
        "reader_no_cache_ratio": ratio("nocache"),
        f"dataloader_{args.workers}_workers_mb_s": loader,
        "dataloader_workers": args.workers,
        "dataloader_batch_size": args.batch_size,
        "dataloader_ranks": args.ranks,
        "dataloader_ratio": ratio("dataloader"),
        "cpu_s_per_gb": {"raw": cpu_per_gb("raw"), "reader_cold": cpu_per_gb("reader"),
                         "reader_no_cache": cpu_per_gb("nocache"), "dataloader": cpu_per_gb("dataloader")},
        "load_average_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(), "python": platform.python_version(),
    }


def _require(got: int, want: int, what: str) -> None:
    if got != want:
        raise SystemExit(f"the {what} read {got} samples, the snapshot has {want}")


def _print_table(result: Dict[str, object]) -> None:
    workers = result["dataloader_workers"]
    print(f"{result['dataset']}/{result['version']} snapshot {result['snapshot']}: {result['shards']} shards, "
          f"{result['samples']} samples, {result['bytes'] / 1e6:.1f} MB at {result['endpoint']}; "
          f"{result['threads']} GETs in flight, prefetch {result['prefetch']}, median of {result['rounds']} round(s)")
    print(f"raw parallel GET          {result['raw_parallel_get_mb_s']:8.1f} MB/s")
    print(f"reader, cold cache        {result['reader_cold_mb_s']:8.1f} MB/s  ratio {result['reader_ratio']:.2f}  "
          f"({result['reader_cold_samples_s']:,} samples/s)")
    print(f"reader, no cache          {result['reader_no_cache_mb_s']:8.1f} MB/s  ratio "
          f"{result['reader_no_cache_ratio']:.2f}")
    if result["dataloader_ratio"] is not None:
        rate = result[f"dataloader_{workers}_workers_mb_s"]
        print(f"DataLoader, {result['dataloader_ranks']} x {workers} workers {rate:6.1f} MB/s  "
              f"ratio {result['dataloader_ratio']:.2f}")
    print("CPU seconds per GB: " + ", ".join(f"{k} {v}" for k, v in result["cpu_s_per_gb"].items() if v is not None)
          + f"  ({result['cpus']} CPUs, load average {result['load_average_1m']})")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m shardflow.tools.bench_read", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", default=None, help="S3 endpoint (default: SHARDFLOW_S3_ENDPOINT, AWS_ENDPOINT_URL)")
    parser.add_argument("--bucket", default=os.environ.get("SHARDFLOW_S3_BUCKET", "shardflow"))
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--snapshot", type=int, default=None, help="default: the latest")
    parser.add_argument("--prefetch", type=int, default=DEFAULT_PREFETCH, help="reader's shards downloaded ahead")
    parser.add_argument("--threads", type=int, default=None, help="raw GETs in flight (default: --prefetch)")
    parser.add_argument("--range-size", type=int, default=DEFAULT_RANGE_SIZE)
    parser.add_argument("--range-threshold", type=int, default=DEFAULT_RANGE_THRESHOLD)
    parser.add_argument("--shuffle-block", type=int, default=DEFAULT_SHUFFLE_BLOCK)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader workers (0: skip the DataLoader)")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--ranks", type=int, default=1, help="DataLoader: read every rank's share, one after another")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.threads is None:
        args.threads = max(1, args.prefetch)
    if args.rounds < 1 or args.threads < 1 or args.ranks < 1:
        parser.error("--rounds, --threads and --ranks must be >= 1")
    quiet = args.json
    result = measure(args, lambda line: None if quiet else print(line, file=sys.stderr))
    if args.json:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        _print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
