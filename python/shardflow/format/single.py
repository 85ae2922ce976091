"""Single rows of an open shard file, read through HDF5 one row at a time: no column is read whole.

For random access: over a paged file (:mod:`shardflow.reading.pagedfile`) HDF5 then touches only the
metadata and the bytes (contiguous datasets) or chunks (chunked ones) of the rows asked for.
:meth:`SingleRows.spans` tells which bytes those are before they are read, so a reader can fetch
them in parallel.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Tuple

import h5py
import numpy as np

from shardflow.errors import FormatError
from shardflow.format.shard import SUPPORTED_FORMAT, _text
from shardflow.format.spec import DatasetSpec

__all__ = ["SingleRows"]

_METADATA = ("sample_id", "device_id", "produced_at", "attributes")


class SingleRows:
    """One open shard file, checked against the spec and the log entry (metadata only)."""

    def __init__(self, f: h5py.File, spec: DatasetSpec, shard_id: str, sample_count: int):
        where = f"shard {shard_id}"
        self.file = f
        self.spec = spec
        try:
            fmt = int(np.asarray(f.attrs["shardflow_format"]).item())
            if fmt != SUPPORTED_FORMAT:
                raise FormatError(f"{where}: shard format {fmt} is not supported (expected {SUPPORTED_FORMAT})")
            if _text(f.attrs["shard_id"]) != shard_id or f["sample_id"].shape != (sample_count,):
                raise FormatError(f"{where}: the file holds {_text(f.attrs['shard_id'])} with {len(f['sample_id'])} "
                                  f"rows, the log says {shard_id} with {sample_count}")
            self.columns: Dict[str, Any] = {}
            for t in spec.tensors:
                node = f["tensors"].get(t.name)
                if node is None:
                    raise FormatError(f"{where}: no tensor {t.name!r}")
                if t.variable:
                    if not isinstance(node, h5py.Group) or node["offsets"].shape != (sample_count + 1,):
                        raise FormatError(f"{where}: tensor {t.name!r} should be a values + offsets group of "
                                          f"{sample_count} rows")
                    self.columns[t.name] = (node["values"], node["offsets"], node.get("shapes"))
                    continue
                stored = np.dtype(np.uint8) if t.dtype == "bool" else t.numpy_dtype
                expected = (sample_count,) + t.shape
                if not isinstance(node, h5py.Dataset) or node.shape != expected or node.dtype != stored:
                    got = "a group" if not isinstance(node, h5py.Dataset) else f"{node.dtype} {node.shape}"
                    raise FormatError(f"{where}: tensor {t.name!r} should be {t.dtype} {expected}, the file has {got}")
                self.columns[t.name] = node
            self.metadata = {name: f[name] for name in _METADATA}
        except (OSError, KeyError, ValueError) as e:
            raise FormatError(f"{where} is not a readable shard file: {e}") from e

    def row(self, i: int, attributes: bool = False) -> Dict[str, Any]:
        """Row ``i`` as ``{tensor: value, ..., "sample_id", "device_id", "produced_at"[, "attributes"]}``:
        fixed tensors as arrays of their own (not views of a shared buffer), the rest as
        :class:`~shardflow.format.rows.ShardRows` gives them."""
        out: Dict[str, Any] = {}
        for t in self.spec.tensors:
            column = self.columns[t.name]
            if isinstance(column, tuple):
                values, offsets, shapes = column
                start, end = (int(o) for o in offsets[i:i + 2])
                value = values[start:end]
                if t.dtype == "string":
                    out[t.name] = value.tobytes().decode("utf-8")
                elif t.dtype == "bytes":
                    out[t.name] = value.tobytes()
                else:
                    out[t.name] = value.reshape(tuple(int(d) for d in shapes[i]))
            else:
                value = np.asarray(column[i])  # a 0-d array for scalars, as the streaming reader gives
                out[t.name] = value.view(np.bool_) if t.dtype == "bool" else value
        out["sample_id"] = _string(self.metadata["sample_id"][i])
        out["device_id"] = _string(self.metadata["device_id"][i])
        out["produced_at"] = int(self.metadata["produced_at"][i])
        if attributes:
            text = _string(self.metadata["attributes"][i])
            out["attributes"] = json.loads(text) if text else {}
        return out

    def spans(self, rows: List[int]) -> List[Tuple[int, int]]:
        """File byte spans ``(start, length)`` holding these rows' fixed columns and metadata, and the
        offsets of their variable tensors, as far as the file's layout tells without reading data:
        the contiguous bytes of each row, or the whole chunk holding it. Values of variable tensors
        are not included (their offsets must be read first: :meth:`value_spans`)."""
        spans: List[Tuple[int, int]] = []
        for name, column in self.columns.items():
            if isinstance(column, tuple):
                spans += _row_spans(column[1], rows, 2)
                if column[2] is not None:
                    spans += _row_spans(column[2], rows, 1)
            else:
                spans += _row_spans(column, rows, 1)
        for name, ds in self.metadata.items():
            if name != "attributes":
                spans += _row_spans(ds, rows, 1)
        return spans

    def value_spans(self, rows: List[int]) -> List[Tuple[int, int]]:
        """The byte spans of these rows' variable-tensor values (reads their offsets)."""
        spans: List[Tuple[int, int]] = []
        for column in self.columns.values():
            if isinstance(column, tuple):
                values, offsets, _ = column
                for i in rows:
                    start, end = (int(o) for o in offsets[i:i + 2])
                    spans += _element_spans(values, start, end)
        return spans


def _string(value) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _row_spans(ds: h5py.Dataset, rows: List[int], count: int) -> List[Tuple[int, int]]:
    """Bytes of elements ``rows[k] .. rows[k] + count`` along the first dimension of ``ds``."""
    row_bytes = ds.dtype.itemsize * int(np.prod(ds.shape[1:], dtype=np.int64))
    spans: List[Tuple[int, int]] = []
    for i in rows:
        spans += _element_spans(ds, i, i + count, row_bytes)
    return spans


def _element_spans(ds: h5py.Dataset, first: int, end: int, row_bytes: Optional[int] = None) -> List[Tuple[int, int]]:
    """Where rows ``first .. end`` of ``ds`` are stored: their bytes when contiguous, the chunks
    holding them when chunked; none when the layout says nothing (HDF5 then reads what it needs)."""
    if end <= first or ds.shape[0] == 0:
        return []
    if row_bytes is None:
        row_bytes = ds.dtype.itemsize * int(np.prod(ds.shape[1:], dtype=np.int64))
    end = min(end, ds.shape[0])
    if ds.chunks is None:
        offset = ds.id.get_offset()
        return [] if offset is None else [(offset + first * row_bytes, (end - first) * row_bytes)]
    rows_per_chunk = ds.chunks[0]
    spans = []
    for chunk in range(first // rows_per_chunk, (end - 1) // rows_per_chunk + 1):
        try:
            info = ds.id.get_chunk_info_by_coord((chunk * rows_per_chunk,) + (0,) * (len(ds.shape) - 1))
        except (AttributeError, RuntimeError, ValueError):
            return spans  # an HDF5 without chunk queries: HDF5 fetches the chunk when it reads it
        if info.byte_offset is not None:
            spans.append((info.byte_offset, info.size))
    return spans
