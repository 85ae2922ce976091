"""Writes the shared test vectors of docs/READING-RULES.md: for small cases (shards and their sample
counts, seed, epoch, shuffle settings, ranks, workers, batch size, drop_last, consumed count, mix
weights or counts), the epoch order and every rank's and worker's batches as (shard id, row).

    python3 -m shardflow.tools.reading_vectors > docs/reading-vectors.json

Readers in other languages check themselves against that file; python/tests check that this
module still produces it.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List

from shardflow.format.entries import ShardEntry
from shardflow.reading.mix import MixedOrder, MixSource, apportion
from shardflow.reading.order import GOLDEN_GAMMA, block_key, mix64, offset_keys
from shardflow.reading.split import RankShare, worker_batches

VECTORS_FORMAT = "shardflow.reading-vectors/1"


def entry(shard_id: str, count: int) -> ShardEntry:
    return ShardEntry(shard_id, shard_id + ".h5", 0, 0, count, 1, "0" * 64, "f", 0, 0, 1)


def _shards(prefix: str, counts: List[int]) -> List[List[Any]]:
    return [[f"{prefix}/lane-00000/shard-{i:012d}", n] for i, n in enumerate(counts)]


CASES: List[Dict[str, Any]] = [
    {"name": "one shard, no shuffle, 3 ranks", "sources": [{"shards": _shards("a/v1", [7])}],
     "seed": 0, "epoch": 0, "shuffle_shards": False, "shuffle_block": 0, "world_size": 3, "num_workers": 0,
     "batch_size": 2, "drop_last": False, "consumed": 0},
    {"name": "uneven shards, block 8, 3 ranks x 2 workers", "sources": [{"shards": _shards("a/v1", [5, 11, 3, 9])}],
     "seed": 7, "epoch": 2, "shuffle_shards": True, "shuffle_block": 8, "world_size": 3, "num_workers": 2,
     "batch_size": 3, "drop_last": False, "consumed": 0},
    {"name": "resumed at 10 on 4 ranks, drop_last", "sources": [{"shards": _shards("a/v1", [5, 11, 3, 9])}],
     "seed": 7, "epoch": 2, "shuffle_shards": True, "shuffle_block": 8, "world_size": 4, "num_workers": 3,
     "batch_size": 2, "drop_last": True, "consumed": 10},
    {"name": "fewer samples than ranks (padding)", "sources": [{"shards": _shards("a/v1", [2, 1])}],
     "seed": 1, "epoch": 0, "shuffle_shards": True, "shuffle_block": 4, "world_size": 5, "num_workers": 2,
     "batch_size": 4, "drop_last": False, "consumed": 0},
    {"name": "empty remainder", "sources": [{"shards": _shards("a/v1", [4])}],
     "seed": 1, "epoch": 0, "shuffle_shards": True, "shuffle_block": 4, "world_size": 2, "num_workers": 1,
     "batch_size": 1, "drop_last": False, "consumed": 4},
    {"name": "mix by weights 0.7/0.3 over 20, epoch 3", "sources": [
        {"shards": _shards("a/v1", [6, 4]), "weight": 0.7}, {"shards": _shards("b/v2", [3, 2]), "weight": 0.3}],
     "epoch_samples": 20, "seed": 5, "epoch": 3, "shuffle_shards": True, "shuffle_block": 4, "world_size": 2,
     "num_workers": 2, "batch_size": 3, "drop_last": False, "consumed": 0},
    {"name": "mix by counts, three sources", "sources": [
        {"shards": _shards("a/v1", [3]), "count": 5}, {"shards": _shards("b/v1", [4]), "count": 2},
        {"shards": _shards("c/v1", [2, 2]), "count": 4}],
     "seed": 11, "epoch": 1, "shuffle_shards": True, "shuffle_block": 3, "world_size": 3, "num_workers": 0,
     "batch_size": 2, "drop_last": False, "consumed": 2},
]


def counts_of(case: Dict[str, Any]) -> List[int]:
    sources = case["sources"]
    if len(sources) == 1 and "weight" not in sources[0] and "count" not in sources[0]:
        return [sum(n for _, n in sources[0]["shards"])]
    if "count" in sources[0]:
        return [s["count"] for s in sources]
    total = case.get("epoch_samples", sum(n for s in sources for _, n in s["shards"]))
    return apportion(total, [s["weight"] for s in sources])


def expected(case: Dict[str, Any]) -> Dict[str, Any]:
    sources = [MixSource(tuple(entry(i, n) for i, n in s["shards"]), case["shuffle_shards"], case["shuffle_block"])
               for s in case["sources"]]
    counts = counts_of(case)
    order = MixedOrder(sources, counts, case["seed"], case["epoch"])
    mixed = len(sources) > 1

    def named(positions) -> List[List[Any]]:
        return [([source] if mixed else []) + [shard.shard_id, row] for source, shard, row in order.entries(positions)]

    b, workers = case["batch_size"], case["num_workers"]
    ranks = []
    for rank in range(case["world_size"]):
        share = RankShare(order.size, case["consumed"], rank, case["world_size"], case["drop_last"])
        batches = share.batch_count(b)
        ranks.append({
            "length": share.length, "padding": share.padding(),
            "workers": [[named(share.batch(j, b)) for j in worker_batches(batches, w, workers)]
                        for w in range(max(workers, 1))],
            "consumed_after_batches": [share.consumed_after(k, b) for k in range(batches + 1)],
        })
    return {"counts": counts, "samples": order.size, "order": named(range(order.size)), "ranks": ranks}


def vectors() -> Dict[str, Any]:
    return {
        "format": VECTORS_FORMAT,
        "mix64": [[str(z), str(mix64(z))] for z in (0, 1, GOLDEN_GAMMA, (1 << 64) - 1)],
        "block_keys": [{"seed": s, "epoch": e, "block": b, "key": str(block_key(s, e, b)),
                        "offset_keys": [str(k) for k in offset_keys(s, e, b, 4).tolist()]}
                       for s, e, b in ((0, 0, 0), (7, 2, 1), (2 ** 63 - 1, 5, 12345))],
        "apportion": [{"total": t, "weights": [str(w) for w in ws], "counts": apportion(t, ws)}
                      for t, ws in ((20, [0.7, 0.3]), (10, [1, 1, 1]), (7, [0.5, 0.25, 0.25]), (1000, [3, 1e-3]))],
        "cases": [{**case, "expected": expected(case)} for case in CASES],
    }


def main() -> int:
    json.dump(vectors(), sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
