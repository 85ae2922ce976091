"""Print a shard as JSON: ``python -m shardflow.inspect SHARD.h5 [--summary]``.

Every value is printed (floats with full precision), so other tools and tests can compare a shard
with what was published, value by value.
"""

from __future__ import annotations

import argparse
import json
import sys

from shardflow.shard import read_shard


def shard_as_json(path: str, summary: bool = False) -> dict:
    shard = read_shard(path)
    out = {
        "dataset": shard.dataset,
        "version": shard.version,
        "shard_id": shard.shard_id,
        "spec_fingerprint": shard.spec_fingerprint,
        "count": len(shard),
        "sample_ids": shard.sample_ids,
        "device_ids": shard.device_ids,
        "produced_at": shard.produced_at.tolist(),
        "attributes": shard.attributes,
        "tensors": {},
    }
    for name, data in shard.tensors.items():
        entry = {"dtype": str(data.dtype), "shape": list(data.shape)}
        if not summary:
            # float32 → Python float is exact; repr round-trips, so nothing is lost in JSON.
            entry["values"] = data.reshape(len(shard), -1).tolist() if len(shard) else []
        out["tensors"][name] = entry
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("shard")
    parser.add_argument("--summary", action="store_true", help="omit tensor values")
    args = parser.parse_args(argv)
    json.dump(shard_as_json(args.shard, args.summary), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
