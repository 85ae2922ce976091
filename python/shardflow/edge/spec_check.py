"""Checks a sample against its dataset version's spec at ``send`` and packs its tensors as the wire
format wants them (docs/producing/wire-format.md): the same checks ingest-app makes, with the same reason
codes, so a device learns of its mistake at once and nothing it would dead-letter is queued."""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from shardflow.edge.errors import SampleRejected
from shardflow.format.spec import DatasetSpec, TensorSpec

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")  # dataset and version (dataset Names.DATASET_NAME)
WIRE_DTYPES = {"bool": "BOOL", "uint8": "UINT8", "int8": "INT8", "int16": "INT16", "int32": "INT32", "int64": "INT64",
               "float32": "FLOAT32", "float64": "FLOAT64", "float16": "FLOAT16", "bfloat16": "BFLOAT16",
               "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64", "string": "STRING", "bytes": "BYTES"}


@dataclass(frozen=True)
class Limits:
    """ingest-app's per-sample limits (its defaults; set them as the deployment sets ingest-app's)."""
    max_id_chars: int = 256
    max_attributes: int = 32
    max_attribute_key_chars: int = 64
    max_attribute_value_chars: int = 256
    max_sample_bytes: int = 1 << 20


@dataclass(frozen=True)
class WireTensor:
    name: str
    dtype: str  # the Avro DType symbol
    shape: List[int]
    data: bytes


def utf16_len(text: str) -> int:
    """Length as Java counts it (UTF-16 code units): ingest-app's limits are in those."""
    return len(text.encode("utf-16-le")) // 2


def check_text(field: str, value: Any, max_chars: int, reason_too_long: str, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise SampleRejected("INVALID_FIELD", f"{field} must be a non-empty string, got {value!r}")
    if utf16_len(value) > max_chars:
        raise SampleRejected(reason_too_long, f"{field} has {utf16_len(value)} characters, limit is {max_chars}")
    for i, c in enumerate(value):
        o = ord(c)
        if o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF:
            raise SampleRejected("INVALID_FIELD", f"{field} holds control character or lone surrogate U+{o:04X} at index {i}")
    return value


def check_attributes(metadata: Optional[Mapping[str, Any]], limits: Limits) -> Dict[str, str]:
    """Attributes as strings, in the order the wire writes them: by key in UTF-16 code units (as
    Java's ``TreeMap`` orders them), so a sample has one encoding in both SDKs."""
    metadata = dict(metadata or {})
    if len(metadata) > limits.max_attributes:
        raise SampleRejected("TOO_MANY_ATTRIBUTES", f"sample has {len(metadata)} attributes, limit is {limits.max_attributes}")
    out = {}
    for key in sorted(metadata, key=lambda k: str(k).encode("utf-16-be")):
        value = metadata[key]
        if not isinstance(key, str):
            raise SampleRejected("INVALID_FIELD", f"attribute key {key!r} is not a string")
        value = value if isinstance(value, str) else str(value)
        check_text("an attribute key", key, limits.max_attribute_key_chars, "ATTRIBUTE_KEY_TOO_LONG")
        check_text(f"attribute {key!r}", value, limits.max_attribute_value_chars, "ATTRIBUTE_VALUE_TOO_LONG", allow_empty=True)
        out[key] = value
    return out


def pack_tensors(spec: DatasetSpec, tensors: Mapping[str, Any], allow_non_finite: bool, limits: Limits,
                 spec_max_sample_bytes: int = 0) -> List[WireTensor]:
    """The tensors in the order given, each checked against the spec and packed little-endian in C order."""
    for name in tensors:
        if name not in spec.tensor_names:
            raise SampleRejected("UNEXPECTED_TENSOR", f"tensor {name!r} is not in the spec of {spec.name}/{spec.version} "
                                                      f"(it has {list(spec.tensor_names)})")
    for t in spec.tensors:
        if t.name not in tensors:
            raise SampleRejected("MISSING_TENSOR", f"tensor {t.name!r} is missing")
    packed = [_pack(spec.tensor(name), value, allow_non_finite) for name, value in tensors.items()]
    total = sum(len(t.data) for t in packed)
    limit = min(spec_max_sample_bytes, limits.max_sample_bytes) if spec_max_sample_bytes > 0 else limits.max_sample_bytes
    if total > limit:
        raise SampleRejected("OVERSIZE_SAMPLE", f"sample has {total} tensor bytes, limit is {limit}")
    return packed


def _pack(t: TensorSpec, value: Any, allow_non_finite: bool) -> WireTensor:
    wire = WIRE_DTYPES[t.dtype]
    if t.dtype == "string":
        if not isinstance(value, str):
            raise SampleRejected("DTYPE_MISMATCH", f"tensor {t.name!r} is a string tensor; got {type(value).__name__}")
        return WireTensor(t.name, wire, [], value.encode("utf-8"))
    if t.dtype == "bytes":
        return WireTensor(t.name, wire, [], _bytes_value(t, value))
    arr = _array(t, value)
    _check_shape(t, arr.shape)
    if not allow_non_finite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise SampleRejected("NON_FINITE_VALUE", f"tensor {t.name!r} holds NaN or infinity and the spec forbids them")
    if t.dtype == "bfloat16" and not allow_non_finite and ((arr & 0x7F80) == 0x7F80).any():
        raise SampleRejected("NON_FINITE_VALUE", f"tensor {t.name!r} holds NaN or infinity and the spec forbids them")
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return WireTensor(t.name, wire, [int(d) for d in arr.shape], data)


def _array(t: TensorSpec, value: Any) -> np.ndarray:
    if t.dtype == "bfloat16":
        return _bfloat16_bits(t, value)
    target = np.dtype(t.dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        if arr.dtype != target:
            raise SampleRejected("DTYPE_MISMATCH", f"tensor {t.name!r} has dtype {arr.dtype}, spec says {t.dtype}")
        return arr
    arr = np.asarray(value)  # a Python scalar or nested list: taken only if it converts without loss
    try:
        cast = arr.astype(target)
        lossless = arr.dtype == object or np.array_equal(cast.astype(arr.dtype), arr, equal_nan=arr.dtype.kind == "f")
    except (ValueError, TypeError, OverflowError):
        lossless = False
    if not lossless or (arr.dtype.kind == "f" and target.kind in "biu"):
        raise SampleRejected("DTYPE_MISMATCH", f"tensor {t.name!r}: {value!r} is not a {t.dtype} value")
    return cast


def _bfloat16_bits(t: TensorSpec, value: Any) -> np.ndarray:
    """bfloat16 from its uint16 bits, or from float32 rounded to nearest even (as PyTorch rounds)."""
    arr = np.asarray(value)
    if arr.dtype == np.uint16:
        return arr
    if arr.dtype != np.float32:
        raise SampleRejected("DTYPE_MISMATCH", f"tensor {t.name!r} is bfloat16: give float32 values or uint16 bits, "
                                               f"got {arr.dtype}")
    bits = np.ascontiguousarray(arr).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(arr)
    out = rounded.astype(np.uint16)
    out[nan] = ((bits[nan] >> 16) | 0x40).astype(np.uint16)  # keep NaN a NaN
    return out


def _check_shape(t: TensorSpec, shape: Tuple[int, ...]) -> None:
    if len(shape) != len(t.shape):
        raise SampleRejected("SHAPE_MISMATCH", f"tensor {t.name!r} has shape {list(shape)}, spec says {t.shape_text() or 'scalar'}")
    for i, (got, want) in enumerate(zip(shape, t.shape)):
        if want is not None and got != want:
            raise SampleRejected("SHAPE_MISMATCH", f"tensor {t.name!r} has shape {list(shape)}, spec says {t.shape_text()}")
        limit = t.max_shape[i] if want is None and t.max_shape else None
        if limit and got > limit:
            raise SampleRejected("DIMENSION_OVER_MAXIMUM", f"tensor {t.name!r} dimension {i} is {got}, maximum {limit}")


def _bytes_value(t: TensorSpec, value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if type(value).__module__.startswith("PIL.") and t.encoding:
        fmt = "JPEG" if t.encoding == "image/jpeg" else "PNG"
        out = io.BytesIO()
        image = value.convert("RGB") if fmt == "JPEG" and value.mode not in ("RGB", "L") else value
        image.save(out, format=fmt, **({"quality": 90} if fmt == "JPEG" else {}))
        return out.getvalue()
    raise SampleRejected("DTYPE_MISMATCH", f"tensor {t.name!r} is a bytes tensor; give bytes"
                                           f"{' or a PIL image' if t.encoding else ''}, got {type(value).__name__}")
