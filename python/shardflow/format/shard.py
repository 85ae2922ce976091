"""One HDF5 shard as written by shard-sink, read with plain h5py.

Layout (format 1): root attributes ``shardflow_format``, ``dataset``, ``version``, ``shard_id``,
``sample_count``, ``spec_fingerprint``; group ``tensors`` with one dataset per fixed tensor field of
shape ``(N, *field_shape)``, and one group per string, bytes or free-shape tensor holding
``values``, ``offsets`` (N+1) and, for free shapes, ``shapes`` (N, rank); root datasets
``sample_id``, ``device_id`` (strings), ``produced_at`` (int64 epoch ms) and ``attributes`` (one
JSON object per row).

Fixed tensors come back as one ``(N, *shape)`` array (bfloat16 as its uint16 bits); variable ones
as a list of N rows: ``str`` for string, ``bytes`` for bytes, an array of its own shape otherwise.
"""

from __future__ import annotations

import io
import json
import mmap
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Union

import h5py
import numpy as np

SUPPORTED_FORMAT = 1


@dataclass
class Shard:
    dataset: str
    version: str
    shard_id: str
    spec_fingerprint: str
    tensors: Dict[str, np.ndarray]
    sample_ids: List[str]
    device_ids: List[str]
    produced_at: np.ndarray
    attributes: List[Dict[str, str]] = field(default_factory=list)
    #: tensor name -> media type, for bytes tensors declared as images
    encodings: Dict[str, str] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.sample_ids)


def _text(value) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray):
        return _text(value.item())
    return str(value)


def _strings(dataset) -> List[str]:
    # Fixed-length byte strings come back NUL-stripped by numpy's tolist().
    return [v.decode("utf-8") if isinstance(v, bytes) else _text(v).rstrip("\x00") for v in dataset[()].tolist()]


class _BufferFile(io.RawIOBase):
    """A read-only file over a buffer, without copying it (``io.BytesIO`` copies a bytearray).
    h5py reads the file's metadata through it; contiguous tensors are viewed in place."""

    def __init__(self, buffer):
        super().__init__()
        self._view = memoryview(buffer).cast("B")
        self._pos = 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def readinto(self, b):
        n = max(0, min(len(b), len(self._view) - self._pos))
        b[:n] = self._view[self._pos:self._pos + n]
        self._pos += n
        return n

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: len(self._view)}[whence]
        self._pos = base + offset
        return self._pos

    def tell(self):
        return self._pos


def _in_place(ds, buffer) -> Optional[np.ndarray]:
    """The dataset as a view into the file's buffer, if it is stored contiguous and unfiltered with a
    dtype numpy reads as is; else None (the caller reads it through HDF5: one copy)."""
    if buffer is None or ds.chunks is not None or ds.dtype.hasobject or ds.size == 0:
        return None
    offset = ds.id.get_offset()
    if offset is None or offset + ds.dtype.itemsize * ds.size > len(buffer):
        return None
    return np.frombuffer(buffer, dtype=ds.dtype, count=ds.size, offset=offset).reshape(ds.shape)


def read_shard(source: Union[str, os.PathLike, bytes, bytearray, memoryview, mmap.mmap],
               attributes: bool = True) -> Shard:
    """Reads every row of a shard into memory, from a file path or from the file's bytes.

    From bytes, tensors stored contiguously (as shard-sink writes them) are numpy views into those
    bytes, not copies: the arrays keep the buffer alive, and they are writable when it is (a
    ``bytearray`` or a writable mapping). ``attributes=False`` skips decoding the per-row attribute JSON
    (``Shard.attributes`` is empty).
    """
    in_memory = isinstance(source, (bytes, bytearray, memoryview, mmap.mmap))
    path = "<bytes>" if in_memory else os.fspath(source)
    buffer = source if in_memory else None
    opened = _BufferFile(source) if in_memory else path
    with h5py.File(opened, "r") as f:
        fmt = int(np.asarray(f.attrs["shardflow_format"]).item())
        if fmt != SUPPORTED_FORMAT:
            raise ValueError(f"{path}: shard format {fmt} is not supported (expected {SUPPORTED_FORMAT})")
        tensors = {}
        encodings = {}
        for name, node in f["tensors"].items():
            dtype = _text(node.attrs.get("shardflow_dtype", ""))
            if isinstance(node, h5py.Group):
                tensors[name] = _variable_rows(node, dtype)
                if "shardflow_encoding" in node.attrs:
                    encodings[name] = _text(node.attrs["shardflow_encoding"])
                continue
            data = _in_place(node, buffer)
            if data is None:
                data = node[()]
            if dtype == "bool":
                data = data.astype(np.bool_, copy=False)
            tensors[name] = data
        rows = [json.loads(s) if s else {} for s in _strings(f["attributes"])] if attributes else []
        return Shard(
            dataset=_text(f.attrs["dataset"]),
            version=_text(f.attrs["version"]),
            shard_id=_text(f.attrs["shard_id"]),
            spec_fingerprint=_text(f.attrs["spec_fingerprint"]),
            tensors=tensors,
            sample_ids=_strings(f["sample_id"]),
            device_ids=_strings(f["device_id"]),
            produced_at=f["produced_at"][()].astype(np.int64, copy=False),
            attributes=rows,
            encodings=encodings,
        )


def _variable_rows(group, dtype: str) -> list:
    """Row i = values[offsets[i]:offsets[i+1]], reshaped to shapes[i] for free shapes."""
    values = group["values"][()]
    offsets = group["offsets"][()]
    n = len(offsets) - 1
    if dtype == "string":
        return [values[offsets[i]:offsets[i + 1]].tobytes().decode("utf-8") for i in range(n)]
    if dtype == "bytes":
        return [values[offsets[i]:offsets[i + 1]].tobytes() for i in range(n)]
    shapes = group["shapes"][()]
    return [values[offsets[i]:offsets[i + 1]].reshape(tuple(int(d) for d in shapes[i])) for i in range(n)]
