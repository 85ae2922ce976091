"""The dataset spec (``spec.json``): named, fixed-shape tensors and the label tensor."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from shardflow.formatjson import FORMAT_VERSION, load_format_json
from shardflow.errors import FormatError
from shardflow.layout import TENSOR_NAME

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64")


@dataclass(frozen=True)
class TensorSpec:
    """One tensor field: every sample has it with exactly this dtype and shape (``()`` = scalar)."""

    name: str
    dtype: str
    shape: Tuple[int, ...]

    @property
    def numpy_dtype(self) -> np.dtype:
        return np.dtype(self.dtype)

    def fingerprint_line(self) -> str:
        return f"{self.name}:{self.dtype}:{'x'.join(str(d) for d in self.shape)}\n"


@dataclass(frozen=True)
class DatasetSpec:
    """``datasets/<name>/<version>/spec.json``. ``fingerprint`` identifies the tensor layout only."""

    name: str
    version: str
    tensors: Tuple[TensorSpec, ...]
    label_tensor: Optional[str]
    author: Optional[str] = None
    description: Optional[str] = None
    created_at: Optional[str] = None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.tensors)

    @property
    def tensor_names(self) -> Tuple[str, ...]:
        return tuple(t.name for t in self.tensors)

    def tensor(self, name: str) -> TensorSpec:
        for t in self.tensors:
            if t.name == name:
                return t
        raise KeyError(f"dataset {self.name}/{self.version} has no tensor {name!r}; it has {list(self.tensor_names)}")

    @property
    def label(self) -> Optional[TensorSpec]:
        return self.tensor(self.label_tensor) if self.label_tensor else None


def fingerprint(tensors) -> str:
    """Lowercase hex SHA-256 of ``name:dtype:d1xd2...\\n`` per tensor in declared order (FORMAT.md)."""
    return hashlib.sha256("".join(t.fingerprint_line() for t in tensors).encode("utf-8")).hexdigest()


def parse_spec(data: bytes, where: str) -> DatasetSpec:
    """Parses ``spec.json``; unknown fields are ignored, another ``formatVersion`` is refused."""
    root = load_format_json(data, where)
    try:
        tensors = tuple(_tensor(t, where) for t in root["tensors"])
        spec = DatasetSpec(name=root["name"], version=root["version"], tensors=tensors,
                           label_tensor=root.get("labelTensor"), author=root.get("author"),
                           description=root.get("description"), created_at=root.get("createdAt"))
    except (KeyError, TypeError) as e:
        raise FormatError(f"{where} lacks or misstates field {e}") from None
    if len(set(spec.tensor_names)) != len(tensors):
        raise FormatError(f"{where} names a tensor twice: {list(spec.tensor_names)}")
    if spec.label_tensor is not None and spec.label_tensor not in spec.tensor_names:
        raise FormatError(f"{where}: labelTensor {spec.label_tensor!r} is not one of {list(spec.tensor_names)}")
    stored = root.get("fingerprint")
    if stored is not None and stored != spec.fingerprint:
        raise FormatError(f"{where} stores fingerprint {stored} but its tensors give {spec.fingerprint}")
    return spec


def spec_to_json(spec: DatasetSpec) -> Dict[str, Any]:
    """The JSON object of a spec, as the Java SpecCodec writes it (used by shardflow.testing)."""
    return {
        "formatVersion": FORMAT_VERSION, "name": spec.name, "version": spec.version,
        "fingerprint": spec.fingerprint,
        "tensors": [{"name": t.name, "dtype": t.dtype, "shape": list(t.shape)} for t in spec.tensors],
        "labelTensor": spec.label_tensor, "author": spec.author or "", "description": spec.description or "",
        "maxSampleBytes": 0, "allowNonFinite": False, "createdAt": spec.created_at or "1970-01-01T00:00:00Z",
    }


def _tensor(node: Dict[str, Any], where: str) -> TensorSpec:
    name, dtype, shape = node["name"], node["dtype"], node["shape"]
    if not isinstance(name, str) or not TENSOR_NAME.fullmatch(name):
        raise FormatError(f"{where}: invalid tensor name {name!r}")
    if dtype not in DTYPES:
        raise FormatError(f"{where}: tensor {name!r} has unknown dtype {dtype!r}; expected one of {DTYPES}")
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 1 for d in shape):
        raise FormatError(f"{where}: tensor {name!r} has invalid shape {shape!r}")
    return TensorSpec(name, dtype, tuple(shape))
