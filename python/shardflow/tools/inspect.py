"""Print a shard as JSON: ``python -m shardflow.tools.inspect SHARD.h5 [--summary]``.

Every value is printed (floats with full precision), so other tools and tests can compare a shard
with what was published, value by value.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys

import numpy as np

from shardflow.format.shard import read_shard


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
        if isinstance(data, list):
            out["tensors"][name] = _variable(data, summary)
            continue
        entry = {"dtype": str(data.dtype), "shape": list(data.shape)}
        if not summary:
            # float32 → Python float is exact; repr round-trips, so nothing is lost in JSON.
            entry["values"] = data.reshape(len(shard), -1).tolist() if len(shard) else []
        out["tensors"][name] = entry
    return out


def _variable(rows: list, summary: bool) -> dict:
    """String rows as text, bytes as base64, free-shape rows with their own shapes."""
    if rows and isinstance(rows[0], str):
        entry = {"dtype": "string", "rows": len(rows)}
        if not summary:
            entry["values"] = rows
    elif rows and isinstance(rows[0], bytes):
        entry = {"dtype": "bytes", "rows": len(rows)}
        if not summary:
            entry["values"] = [base64.b64encode(r).decode() for r in rows]
    else:
        entry = {"dtype": str(rows[0].dtype) if rows else "", "shapes": [list(np.shape(r)) for r in rows]}
        if not summary:
            entry["values"] = [np.asarray(r).reshape(-1).tolist() for r in rows]
    return entry


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
