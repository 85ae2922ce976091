"""Latency and bytes of random access (``ds[i]``) against the object store, with a whole-shard GET
of the same shards in the same run as the baseline.

    python3 -m shardflow.tools.bench_random --endpoint http://127.0.0.1:PORT --bucket shardflow \\
        --dataset demo --version v1 [--samples 200] [--json]

Credentials as for ``bench_read``. Over ``--samples`` indices drawn at random (``--seed``):

1. cold: each sample read by a new :class:`~shardflow.reading.randomaccess.RandomAccess` (no page,
   no page index, no open file kept; the dataset's spec and log are read before the clock starts)
   with no shard cache: p50 / p90 / p99 latency, GETs, bytes fetched and their share of the shard;
2. warm: the same indices through one ``RandomAccess`` (pages and open files kept, 256 MiB);
3. batches: ``get_many`` of ``--batch-size`` indices, each batch cold;
4. baseline: one plain ``get_object`` of the whole shard object for every shard the samples fell
   in (what reading a sample costs without a page index).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from typing import Dict, List

from shardflow.reading.dataset import Dataset
from shardflow.storage.store import S3Settings, S3Store


def _percentiles(ms: List[float]) -> Dict[str, float]:
    ordered = sorted(ms)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]

    return {"p50_ms": at(0.5), "p90_ms": at(0.9), "p99_ms": at(0.99), "mean_ms": statistics.fmean(ordered)}


def run(ds: Dataset, samples: int, batch_size: int, seed: int) -> Dict[str, object]:
    rng = random.Random(seed)
    indices = [rng.randrange(len(ds)) for _ in range(samples)]
    cold_ms, gets, fetched, share = [], [], [], []
    for i in indices:
        access = ds.random_access(page_cache_bytes=256 << 20)  # options given: a new, empty one
        start = time.perf_counter()
        access.get(i)
        cold_ms.append((time.perf_counter() - start) * 1e3)
        stats = access.stats
        shard, _ = access.locate(i)
        gets.append(stats.page_gets + stats.index_gets)
        fetched.append(stats.page_bytes)
        share.append(stats.page_bytes / shard.bytes)
        access.close()
    warm = ds.random_access(page_cache_bytes=256 << 20)
    warm_ms = []
    for i in indices:
        start = time.perf_counter()
        warm.get(i)
        warm_ms.append((time.perf_counter() - start) * 1e3)
    batch_ms = []
    for first in range(0, len(indices) - batch_size + 1, batch_size):
        access = ds.random_access(page_cache_bytes=256 << 20)
        start = time.perf_counter()
        access.get_many(indices[first:first + batch_size])
        batch_ms.append((time.perf_counter() - start) * 1e3)
        access.close()
    shards = {ds.locate(i)[0].object_key: ds.locate(i)[0] for i in indices}
    whole_ms = []
    client = ds.store.client
    for key in shards:
        start = time.perf_counter()
        client.get_object(Bucket=ds.store.bucket, Key=key)["Body"].read()
        whole_ms.append((time.perf_counter() - start) * 1e3)
    sizes = [s.bytes for s in shards.values()]
    return {
        "dataset": f"{ds.name}/{ds.version}", "snapshot": ds.snapshot_id, "samples": len(ds), "shards": len(ds.shards),
        "shard_mb_median": statistics.median(sizes) / 1e6, "measured": samples,
        "page_index_shards": sum(1 for s in ds.shards if s.page_index_sha256),
        "cold": dict(_percentiles(cold_ms), gets_median=statistics.median(gets), kb_fetched_median=statistics.median(
            fetched) / 1e3, share_of_shard_median=statistics.median(share), share_of_shard_max=max(share)),
        "warm": dict(_percentiles(warm_ms), kb_fetched_total=warm.stats.page_bytes / 1e3,
                     share_of_touched_shards=warm.stats.page_bytes / sum(sizes)),
        "batch": dict(_percentiles(batch_ms), batch_size=batch_size) if batch_ms else {},
        "whole_shard_get": _percentiles(whole_ms),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m shardflow.tools.bench_random", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", default=None, help="S3 endpoint (default: SHARDFLOW_S3_ENDPOINT, AWS_ENDPOINT_URL)")
    parser.add_argument("--bucket", default=os.environ.get("SHARDFLOW_S3_BUCKET", "shardflow"))
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--snapshot", type=int, default=None, help="default: the latest")
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    store = S3Store(args.bucket, S3Settings(endpoint=args.endpoint).over(S3Settings.from_env()))
    ds = Dataset(f"s3://{args.bucket}", args.dataset, args.version, args.snapshot, s3=store, cache_dir=False)
    result = run(ds, args.samples, args.batch_size, args.seed)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['dataset']} snapshot {result['snapshot']}: {result['samples']} samples in {result['shards']} "
          f"shards (median {result['shard_mb_median']:.1f} MB, {result['page_index_shards']} with a page index); "
          f"{result['measured']} random samples")
    for name in ("cold", "warm", "batch", "whole_shard_get"):
        row = result[name]
        if row:
            extra = {k: round(v, 4) for k, v in row.items() if not k.endswith("_ms")}
            print(f"  {name:16} p50 {row['p50_ms']:7.1f} ms  p90 {row['p90_ms']:7.1f} ms  p99 {row['p99_ms']:7.1f} ms  "
                  f"{extra}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
