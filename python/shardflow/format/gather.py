"""Rows of shard columns copied straight into a batch's arrays, without a Python object per row.

A batch's rows come from a few shards, each shard's rows scattered over the batch. For each shard,
its rows are gathered with one numpy fancy index per column and put in their batch slots with one
scatter, into arrays allocated once per batch (:func:`numpy.empty`, or shared memory a framework
hands in). Variable-length columns (FORMAT.md's values + offsets) are gathered the same way with
index arithmetic over their offsets: :class:`Ragged` holds a batch of them as one values array.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np

Allocate = Callable[[tuple, np.dtype], np.ndarray]
"""Makes an uninitialised array of a shape and dtype (``numpy.empty`` by default)."""


def allocate_numpy(shape: tuple, dtype: np.dtype) -> np.ndarray:
    return np.empty(shape, dtype=dtype)


class Ragged:
    """A batch of variable-length values of one tensor: row ``i`` is ``values[offsets[i]:offsets[i+1]]``,
    reshaped to ``shapes[i]`` for free-shape tensors, a ``str`` for ``string`` and ``bytes`` for
    ``bytes`` tensors (exactly what the per-sample reader gives for that row)."""

    __slots__ = ("dtype", "values", "offsets", "shapes")

    def __init__(self, dtype: str, values: np.ndarray, offsets: np.ndarray, shapes: Optional[np.ndarray]):
        self.dtype, self.values, self.offsets, self.shapes = dtype, values, offsets, shapes

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i: int):
        value = self.values[self.offsets[i]:self.offsets[i + 1]]
        if self.dtype == "string":
            return value.tobytes().decode("utf-8")
        if self.dtype == "bytes":
            return value.tobytes()
        return value.reshape(tuple(int(d) for d in self.shapes[i]))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def tolist(self) -> list:
        return list(self)

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __repr__(self):
        return f"Ragged({self.dtype}, {len(self)} rows, {self.values.size} values)"


def spans_index(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Indices ``starts[i] .. starts[i] + lengths[i] - 1`` of every span, concatenated."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    firsts = np.cumsum(lengths) - lengths  # where each span begins in the output
    return np.repeat(starts - firsts, lengths) + np.arange(total, dtype=np.int64)


class RaggedGather:
    """Builds one batch's :class:`Ragged` from the rows of several shards' values + offsets columns."""

    def __init__(self, dtype: str, numpy_dtype: np.dtype, rank: Optional[int], size: int):
        self.dtype, self.numpy_dtype, self.rank = dtype, numpy_dtype, rank
        self.lengths = np.zeros(size, dtype=np.int64)
        self.parts: List[tuple] = []  # (slots, values column, starts) per shard
        self.shapes = np.zeros((size, rank), dtype=np.int64) if rank is not None else None

    def add(self, slots: np.ndarray, rows: np.ndarray, values: np.ndarray, offsets: np.ndarray,
            shapes: Optional[np.ndarray]) -> None:
        starts = offsets[rows]
        self.lengths[slots] = offsets[rows + 1] - starts
        if self.shapes is not None:
            self.shapes[slots] = shapes[rows]
        self.parts.append((slots, values, starts))

    def finish(self, allocate: Allocate) -> Ragged:
        offsets = np.zeros(len(self.lengths) + 1, dtype=np.int64)
        np.cumsum(self.lengths, out=offsets[1:])
        values = allocate((int(offsets[-1]),), self.numpy_dtype)
        for slots, column, starts in self.parts:
            lengths = self.lengths[slots]
            values[spans_index(offsets[slots], lengths)] = column[spans_index(starts, lengths)]
        return Ragged(self.dtype, values, offsets, self.shapes)


def strings_out(parts: Sequence[tuple], size: int) -> np.ndarray:
    """Strings of several shards (``(slots, values)`` each: fixed-length bytes, or objects) as one
    array of ``str`` in batch order (numpy drops the NUL padding, as the per-sample reader does)."""
    if all(p[1].dtype.kind == "S" for p in parts):
        width = max([1] + [p[1].dtype.itemsize for p in parts])
        out = np.empty(size, dtype=f"S{width}")
        for slots, values in parts:
            out[slots] = values
        try:
            return out.astype(str)
        except UnicodeDecodeError:  # not ASCII: numpy's cast decodes ASCII only
            return np.array([v.decode("utf-8") for v in out.tolist()], dtype=str)
    texts: List[str] = [""] * size
    for slots, values in parts:
        for k, v in zip(slots.tolist(), values.tolist()):
            texts[k] = v.decode("utf-8") if isinstance(v, bytes) else str(v)
    return np.array(texts, dtype=str)
