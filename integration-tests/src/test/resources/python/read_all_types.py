"""Reads a dataset of every tensor type two ways and prints one JSON object per way, keyed by sample id.

usage: read_all_types.py h5py SHARD.h5 [SHARD.h5 ...]   plain h5py, no shardflow code (FORMAT.md alone)
       read_all_types.py reader URI DATASET VERSION       shardflow's Dataset + PyTorch DataLoader

Each tensor comes out as {"b64": little-endian bytes, "shape": [...]} (string: {"text"}); through the
reader a decoded image comes out as {"shape": [H, W, C], "pixels_b64": ...} and bfloat16 as the bits
of the torch.bfloat16 tensor it became.
"""
import base64
import json
import sys

import numpy as np


def b64(array):
    return base64.b64encode(np.ascontiguousarray(array).tobytes()).decode()


def with_h5py(paths):
    import h5py
    out = {}
    for path in paths:
        with h5py.File(path, "r") as f:
            ids = list(f["sample_id"].asstr()[:])
            for name in f["tensors"]:
                node = f["tensors"][name]
                dtype = node.attrs["shardflow_dtype"].decode()
                for i, sample_id in enumerate(ids):
                    if isinstance(node, h5py.Group):
                        o = node["offsets"]
                        row = node["values"][o[i]:o[i + 1]]
                        if "shapes" in node:
                            row = row.reshape(node["shapes"][i])
                    else:
                        row = node[i]
                    value = {"dtype": dtype, "numpy": str(row.dtype), "shape": list(np.shape(row)), "b64": b64(row)}
                    if dtype == "string":
                        value["text"] = row.tobytes().decode("utf-8")
                    out.setdefault(sample_id, {})[name] = value
    return out


def with_reader(uri, dataset, version):
    import torch

    from shardflow import Dataset
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    ds = Dataset(uri, dataset, version)
    loader = ShardflowDataLoader(ShardflowIterableDataset(ds, shuffle_block=0), batch_size=8, num_workers=2,
                                 ragged="list")
    out = {}
    for batch in loader:
        for i, sample_id in enumerate(batch["sample_id"]):
            row = {}
            for t in ds.spec.tensors:
                value = batch[t.name][i]
                if t.encoding:
                    row[t.name] = {"shape": list(value.shape), "dtype": str(value.dtype), "pixels_b64": b64(value.numpy())}
                elif t.dtype == "string":
                    row[t.name] = {"text": value}
                elif t.dtype == "bytes":
                    row[t.name] = {"b64": base64.b64encode(value).decode()}
                elif t.dtype == "bfloat16":
                    row[t.name] = {"dtype": str(value.dtype), "shape": list(value.shape),
                                   "b64": b64(value.view(torch.int16).numpy())}
                else:
                    row[t.name] = {"dtype": str(value.dtype), "shape": list(value.shape), "b64": b64(value.numpy())}
            out[sample_id] = row
    return out


if __name__ == "__main__":
    way = sys.argv[1]
    result = with_h5py(sys.argv[2:]) if way == "h5py" else with_reader(*sys.argv[2:5])
    json.dump(result, sys.stdout)
