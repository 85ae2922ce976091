"""The dataset spec (``spec.json``): named tensors (fixed or free dimensions, string, bytes, media) and the label tensor."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

import numpy as np

from shardflow.errors import FormatError
from shardflow.format.formatjson import FORMAT_VERSION, load_format_json
from shardflow.format.layout import TENSOR_NAME

DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64",
          "float16", "bfloat16", "uint16", "uint32", "uint64", "string", "bytes")
#: one value of any length per sample, stored as uint8 values + offsets
WHOLE_VALUE_DTYPES = ("string", "bytes")
MEDIA_TYPES = ("image/jpeg", "image/png")


@dataclass(frozen=True)
class TensorSpec:
    """One tensor field. ``shape`` has ``None`` for a free dimension (``max_shape`` its maximum or
    ``None``); ``string``/``bytes`` tensors have no shape, and a bytes tensor may name its media
    ``encoding`` (``image/jpeg``, ``image/png``)."""

    name: str
    dtype: str
    shape: Tuple[Optional[int], ...]
    max_shape: Optional[Tuple[Optional[int], ...]] = None
    encoding: Optional[str] = None

    @property
    def numpy_dtype(self) -> np.dtype:
        """The dtype of the stored values: bfloat16 as its uint16 bits, string and bytes as uint8."""
        if self.dtype == "bfloat16":
            return np.dtype("uint16")
        if self.dtype in WHOLE_VALUE_DTYPES:
            return np.dtype("uint8")
        return np.dtype(self.dtype)

    @property
    def variable(self) -> bool:
        """Whether samples differ in size: stored as a values + offsets group (FORMAT.md)."""
        return self.dtype in WHOLE_VALUE_DTYPES or None in self.shape

    def shape_text(self) -> str:
        if self.encoding:
            return self.encoding
        parts = []
        for i, d in enumerate(self.shape):
            if d is None:
                m = self.max_shape[i] if self.max_shape else None
                parts.append(f"?<={m}" if m else "?")
            else:
                parts.append(str(d))
        return "x".join(parts)

    def fingerprint_line(self) -> str:
        return f"{self.name}:{self.dtype}:{self.shape_text()}\n"


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
    compression: str = "none"

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
                           description=root.get("description"), created_at=root.get("createdAt"),
                           compression=root.get("compression") or "none")
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
    """The JSON object of a spec, as the Java SpecCodec writes it (used by shardflow.tools.testing)."""
    return {
        "formatVersion": FORMAT_VERSION, "name": spec.name, "version": spec.version,
        "fingerprint": spec.fingerprint,
        "tensors": [_tensor_json(t) for t in spec.tensors],
        "labelTensor": spec.label_tensor, "author": spec.author or "", "description": spec.description or "",
        "maxSampleBytes": 0, "allowNonFinite": False, "createdAt": spec.created_at or "1970-01-01T00:00:00Z",
        **({"compression": spec.compression} if spec.compression != "none" else {}),
    }


def _tensor_json(t: TensorSpec) -> Dict[str, Any]:
    node: Dict[str, Any] = {"name": t.name, "dtype": t.dtype, "shape": list(t.shape)}
    if t.max_shape and any(t.max_shape):
        node["maxShape"] = list(t.max_shape)
    if t.encoding:
        node["encoding"] = t.encoding
    return node


def _tensor(node: Dict[str, Any], where: str) -> TensorSpec:
    name, dtype, shape = node["name"], node["dtype"], node["shape"]
    if not isinstance(name, str) or not TENSOR_NAME.fullmatch(name):
        raise FormatError(f"{where}: invalid tensor name {name!r}")
    if dtype not in DTYPES:
        raise FormatError(f"{where}: tensor {name!r} has unknown dtype {dtype!r}; expected one of {DTYPES}")
    if not isinstance(shape, list) or not all(d is None or (isinstance(d, int) and d >= 1) for d in shape):
        raise FormatError(f"{where}: tensor {name!r} has invalid shape {shape!r}")
    if dtype in WHOLE_VALUE_DTYPES and shape:
        raise FormatError(f"{where}: {dtype} tensor {name!r} takes no shape, got {shape!r}")
    max_shape = node.get("maxShape")
    if max_shape is not None and (not isinstance(max_shape, list) or len(max_shape) != len(shape)):
        raise FormatError(f"{where}: tensor {name!r} has invalid maxShape {max_shape!r}")
    encoding = node.get("encoding")
    if encoding is not None and (dtype != "bytes" or encoding not in MEDIA_TYPES):
        raise FormatError(f"{where}: tensor {name!r} has invalid encoding {encoding!r}")
    return TensorSpec(name, dtype, tuple(shape), tuple(max_shape) if max_shape else None, encoding)
