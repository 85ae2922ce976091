"""Where a device gets its dataset version's spec: a ``DatasetSpec``, a copy of ``spec.json`` (e.g.
from ``bin/shardflow dataset show`` or the bucket), or the same ``name:dtype[:shape]`` texts that
``bin/shardflow dataset create --tensor`` takes. A device needs no access to object storage."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

from shardflow.format.spec import DTYPES, MEDIA_TYPES, WHOLE_VALUE_DTYPES, DatasetSpec, TensorSpec, parse_spec

SpecLike = Union[DatasetSpec, str, os.PathLike, bytes, dict]


@dataclass(frozen=True)
class LoadedSpec:
    spec: DatasetSpec
    allow_non_finite: bool = False
    max_sample_bytes: int = 0


def load_spec(source: SpecLike, dataset: str, version: str, label: Optional[str] = None,
              tensors: Optional[Sequence[str]] = None) -> LoadedSpec:
    """``source`` is a spec, a spec.json path, its bytes or parsed JSON; or None with ``tensors`` texts."""
    if source is None:
        if not tensors:
            raise ValueError("give the dataset's spec: a spec.json path, a DatasetSpec, or tensor texts name:dtype[:shape]")
        specs = tuple(parse_tensor(t) for t in tensors)
        if label is not None and label not in [t.name for t in specs]:
            raise ValueError(f"label tensor {label!r} is not one of the tensors {[t.name for t in specs]}")
        return LoadedSpec(DatasetSpec(dataset, version, specs, label))
    if isinstance(source, DatasetSpec):
        return _matching(LoadedSpec(source), dataset, version)
    if isinstance(source, dict):
        raw = json.dumps(source).encode()
    elif isinstance(source, bytes):
        raw = source
    else:
        with open(source, "rb") as f:
            raw = f.read()
    spec = parse_spec(raw, str(source) if not isinstance(source, (bytes, dict)) else "spec.json")
    root = json.loads(raw)
    return _matching(LoadedSpec(spec, bool(root.get("allowNonFinite", False)), int(root.get("maxSampleBytes", 0) or 0)),
                     dataset, version)


def _matching(loaded: LoadedSpec, dataset: str, version: str) -> LoadedSpec:
    if (loaded.spec.name, loaded.spec.version) != (dataset, version):
        raise ValueError(f"the spec given is {loaded.spec.name}/{loaded.spec.version}, the producer sends to {dataset}/{version}")
    return loaded


def parse_tensor(text: str) -> TensorSpec:
    """``image:float32:3x32x32``, ``label:int64``, ``tokens:int32:?<=512``, ``frame:bytes:image/jpeg``."""
    parts = text.split(":", 2)
    if len(parts) < 2 or parts[1] not in DTYPES:
        raise ValueError(f"tensor {text!r}: expected name:dtype[:shape] with dtype one of {DTYPES}")
    name, dtype = parts[0], parts[1]
    shape_text = parts[2] if len(parts) == 3 else ""
    if dtype in WHOLE_VALUE_DTYPES:
        encoding = shape_text or None
        if encoding is not None and (dtype != "bytes" or encoding not in MEDIA_TYPES):
            raise ValueError(f"tensor {text!r}: a {dtype} tensor takes no shape (bytes may name one of {MEDIA_TYPES})")
        return TensorSpec(name, dtype, (), None, encoding)
    shape, maxima = [], []
    for dim in (shape_text.split("x") if shape_text else []):
        if dim == "?":
            shape.append(None), maxima.append(None)
        elif dim.startswith("?<="):
            shape.append(None), maxima.append(_positive(dim[3:], text))
        else:
            shape.append(_positive(dim, text)), maxima.append(None)
    return TensorSpec(name, dtype, tuple(shape), tuple(maxima) if any(m is not None for m in maxima) else None)


def _positive(value: Any, text: str) -> int:
    if not str(value).isdigit() or int(value) < 1:
        raise ValueError(f"tensor {text!r}: dimension {value!r} is not a positive integer, '?' or '?<=N'")
    return int(value)
