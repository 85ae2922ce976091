"""Chosen rows of one shard file, without decoding the others.

:class:`ShardRows` opens a shard's bytes (a mapping of the cache file, or memory) once: HDF5
metadata, then every column as a numpy view into those bytes where it is stored contiguous and
unfiltered (as the default writer stores it), else read whole once (chunked or compressed data).
:meth:`ShardRows.take` then builds only the rows asked for: row views of the tensors, and the ids,
times and attributes of those rows alone. A reader that needs a few rows of many shards (every
DataLoader worker, in the global epoch order) so pays per row, not per shard.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Sequence

import h5py
import numpy as np

from shardflow.errors import FormatError
from shardflow.format.shard import SUPPORTED_FORMAT, _BufferFile, _in_place, _text
from shardflow.format.spec import DatasetSpec, TensorSpec

__all__ = ["ShardRows"]


def _column(ds, buffer) -> np.ndarray:
    data = _in_place(ds, buffer)
    return ds[()] if data is None else data


class _Variable:
    """A values + offsets group (FORMAT.md): row ``i`` is ``values[offsets[i]:offsets[i+1]]``."""

    def __init__(self, group, spec: TensorSpec, buffer, rows: int, where: str):
        self.dtype = spec.dtype
        self.values = _column(group["values"], buffer)
        self.offsets = _column(group["offsets"], buffer).astype(np.int64, copy=False)
        self.shapes = _column(group["shapes"], buffer) if "shapes" in group else None
        if len(self.offsets) != rows + 1 or (self.shapes is None and spec.dtype not in ("string", "bytes")):
            raise FormatError(f"{where}: tensor {spec.name!r} has {len(self.offsets)} offsets for {rows} rows")

    def row(self, i: int):
        value = self.values[self.offsets[i]:self.offsets[i + 1]]
        if self.dtype == "string":
            return value.tobytes().decode("utf-8")
        if self.dtype == "bytes":
            return value.tobytes()
        return value.reshape(tuple(int(d) for d in self.shapes[i]))


class ShardRows:
    """One shard, checked against the spec and the log entry, ready to hand out single rows."""

    def __init__(self, buffer, spec: DatasetSpec, shard_id: str, sample_count: int):
        where = f"shard {shard_id}"
        self.buffer = buffer
        self.shard_id = shard_id
        try:
            with h5py.File(_BufferFile(buffer), "r") as f:
                self._open(f, spec, shard_id, sample_count, where)
        except (OSError, KeyError, ValueError) as e:
            raise FormatError(f"{where} is not a readable shard file: {e}") from e

    def _open(self, f, spec: DatasetSpec, shard_id: str, sample_count: int, where: str) -> None:
        fmt = int(np.asarray(f.attrs["shardflow_format"]).item())
        if fmt != SUPPORTED_FORMAT:
            raise FormatError(f"{where}: shard format {fmt} is not supported (expected {SUPPORTED_FORMAT})")
        if _text(f.attrs["shard_id"]) != shard_id or len(f["sample_id"]) != sample_count:
            raise FormatError(f"{where}: the file holds {_text(f.attrs['shard_id'])} with {len(f['sample_id'])} "
                              f"rows, the log says {shard_id} with {sample_count}")
        self.tensors: Dict[str, Any] = {}
        for t in spec.tensors:
            node = f["tensors"].get(t.name)
            if node is None:
                raise FormatError(f"{where}: no tensor {t.name!r}")
            if t.variable:
                if not isinstance(node, h5py.Group):
                    raise FormatError(f"{where}: tensor {t.name!r} should be a values + offsets group")
                self.tensors[t.name] = _Variable(node, t, self.buffer, sample_count, where)
                continue
            values = _column(node, self.buffer) if isinstance(node, h5py.Dataset) else None
            if t.dtype == "bool" and values is not None and values.dtype == np.uint8:
                values = values.view(np.bool_)  # stored as uint8 0/1 (FORMAT.md)
            expected = (sample_count,) + t.shape
            if values is None or values.shape != expected or values.dtype != t.numpy_dtype:
                got = "a group" if values is None else f"{values.dtype} {values.shape}"
                raise FormatError(f"{where}: tensor {t.name!r} should be {t.dtype} {expected}, the file has {got}")
            self.tensors[t.name] = values
        self.sample_ids = _column(f["sample_id"], self.buffer)
        self.device_ids = _column(f["device_id"], self.buffer)
        self.produced_at = _column(f["produced_at"], self.buffer).astype(np.int64, copy=False)
        self.attributes = _column(f["attributes"], self.buffer)

    def take(self, rows: Sequence[int], attributes: bool = False) -> List[Dict[str, Any]]:
        """The rows asked for, in that order, each as ``{tensor: value, ..., "sample_id", "device_id",
        "produced_at"[, "attributes"]}``; fixed tensors are views into the shard's bytes."""
        rows = np.asarray(rows, dtype=np.int64)
        columns: Dict[str, list] = {}
        for name, values in self.tensors.items():
            if isinstance(values, _Variable):
                columns[name] = [values.row(i) for i in rows.tolist()]
            else:
                columns[name] = [values[i, ...] for i in rows.tolist()]
        columns["sample_id"] = _strings(self.sample_ids[rows])
        columns["device_id"] = _strings(self.device_ids[rows])
        columns["produced_at"] = self.produced_at[rows].tolist()
        if attributes:
            columns["attributes"] = [json.loads(s) if s else {} for s in _strings(self.attributes[rows])]
        keys = list(columns)
        return [dict(zip(keys, row)) for row in zip(*columns.values())]


def _strings(values: np.ndarray) -> List[str]:
    # numpy drops the NUL padding of fixed-length byte strings when it hands out items.
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values.tolist()]
