"""Prints every value of a shard file as JSON, read with plain h5py or plain PyTables (no shardflow code).

usage: dump_shard.py h5py|tables FILE
Tensors come out as base64 of each row's little-endian C-order bytes, so the caller compares them
byte for byte with what it wrote. A string, bytes or free-shape tensor is a group (values, offsets,
shapes): its rows are values[offsets[i]:offsets[i+1]], and "shapes" lists each row's shape.
"""
import base64
import json
import sys

import numpy as np


def row_bytes(array):
    return [base64.b64encode(np.ascontiguousarray(row).astype(row.dtype.newbyteorder("<")).tobytes()).decode()
            for row in array]


def ragged(values, offsets, shapes, dtype, shape, filters):
    return {"dtype": dtype, "shape": shape, "filters": filters,
            "rows": row_bytes([values[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]),
            "shapes": [[int(d) for d in s] for s in shapes] if shapes is not None else None}


def h5py_tensor(node):
    import h5py
    dtype = node.attrs["shardflow_dtype"].decode()
    if isinstance(node, h5py.Group):
        shapes = node["shapes"][()] if "shapes" in node else None
        return ragged(node["values"][()], node["offsets"][()], shapes, dtype, None, node["values"].compression)
    return {"dtype": dtype, "shape": [int(d) for d in node.shape], "rows": row_bytes(node[()]),
            "numpy": str(node.dtype), "filters": node.compression}


def with_h5py(path):
    import h5py
    with h5py.File(path, "r") as f:
        tensors = {name: h5py_tensor(f["tensors"][name]) for name in f["tensors"]}
        return {"attrs": {k: (v.decode() if isinstance(v, bytes) else int(v)) for k, v in f.attrs.items()},
                "sample_id": list(f["sample_id"].asstr()[:]),
                "device_id": list(f["device_id"].asstr()[:]),
                "attributes": list(f["attributes"].asstr()[:]),
                "produced_at": [int(v) for v in f["produced_at"][:]],
                "tensors": tensors}


def with_tables(path):
    import tables
    with tables.open_file(path, "r") as f:
        def text(node):
            return [v.decode("utf-8") for v in node.read()]

        def attr(node, name):
            # PyTables keeps the terminating NUL of a fixed-length string attribute (jHDF's files too)
            v = node._v_attrs[name]
            return v.decode().rstrip("\x00") if isinstance(v, bytes) else (str(v).rstrip("\x00") if isinstance(v, str) else int(v))

        def tensor(node):
            if isinstance(node, tables.Group):
                shapes = node.shapes.read() if "shapes" in node else None
                return ragged(node.values.read(), node.offsets.read(), shapes, attr(node, "shardflow_dtype"), None, None)
            return {"dtype": attr(node, "shardflow_dtype"), "shape": [int(d) for d in node.shape], "rows": row_bytes(node.read())}

        tensors = {node._v_name: tensor(node) for node in f.root.tensors}
        names = ["shardflow_format", "dataset", "version", "shard_id", "spec_fingerprint", "sample_count"]
        return {"attrs": {k: attr(f.root, k) for k in names},
                "sample_id": text(f.root.sample_id),
                "device_id": text(f.root.device_id),
                "attributes": text(f.root.attributes),
                "produced_at": [int(v) for v in f.root.produced_at.read()],
                "tensors": tensors}


if __name__ == "__main__":
    library, path = sys.argv[1], sys.argv[2]
    print(json.dumps(with_h5py(path) if library == "h5py" else with_tables(path)))
