"""How a value a trainer saves becomes a file, and back: ``torch`` (anything torch.save takes:
state dicts, tensors, RNG states), ``numpy`` (an ``np.ndarray`` as .npy) or ``bytes`` (bytes, a
readable binary stream, or the path of a local file, copied as they are). Every encoder writes
in slices, never the whole value at once (numpy: 16 MiB, torch: 1 MiB, streams: 1 MiB)."""

from __future__ import annotations

import os
from typing import Any, BinaryIO, Optional

import numpy as np

from shardflow.checkpoints.torchzip import save_streamed

_SLICE = 1 << 20


def kind_of(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return "numpy"
    if isinstance(value, (bytes, bytearray, memoryview, os.PathLike)) or hasattr(value, "readinto"):
        return "bytes"
    return "torch"


def encode(value: Any, out: BinaryIO) -> str:
    """Writes ``value`` to ``out``; returns its kind."""
    kind = kind_of(value)
    if kind == "numpy":
        if value.dtype.hasobject:
            raise TypeError("numpy arrays of Python objects are not saved (they would need pickle to load): "
                            "convert them, or save them as a torch value")
        np.lib.format.write_array(out, value, allow_pickle=False)
    elif kind == "bytes":
        _copy(value, out)
    else:
        try:
            import torch  # noqa: F401
        except ImportError:
            raise TypeError(f"saving a {type(value).__name__} needs torch (torch.save format); without torch save "
                            f"numpy arrays or bytes") from None
        save_streamed(value, out)
    return kind


def _copy(value: Any, out: BinaryIO) -> None:
    if isinstance(value, (bytes, bytearray, memoryview)):
        view = memoryview(value).cast("B")
        for start in range(0, len(view), _SLICE):
            out.write(view[start:start + _SLICE])
        return
    stream: Optional[BinaryIO] = open(value, "rb") if isinstance(value, os.PathLike) else None
    source = stream or value
    buffer = bytearray(_SLICE)
    try:
        while True:
            n = source.readinto(buffer)
            if not n:
                return
            out.write(memoryview(buffer)[:n])
    finally:
        if stream is not None:
            stream.close()


def decode(kind: str, path: str, map_location: Any = None) -> Any:
    """The value of a downloaded (and verified) file."""
    if kind == "torch":
        import torch

        return torch.load(path, map_location=map_location)
    if kind == "numpy":
        return np.load(path, allow_pickle=False)
    if kind == "bytes":
        with open(path, "rb") as f:
            return f.read()
    raise ValueError(f"unknown file kind {kind!r} (written by a newer shardflow?)")
