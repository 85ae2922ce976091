"""Writing datasets the way shard-sink does, for tests and tools (readers never need this).

Shard files are written with h5py in the layout of dataset/FORMAT.md; objects and commit entries
are written create-only, so a test can commit to a real bucket alongside the real pipeline.
"""

from __future__ import annotations

import hashlib
import io
import json
from datetime import datetime, timezone
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import h5py
import numpy as np

from shardflow.format import layout
from shardflow.format.pages import DEFAULT_PAGE_SIZE, build_page_index, encode_page_index, page_index_key
from shardflow.format.spec import DatasetSpec, spec_to_json
from shardflow.reading.log import CommitEntry, ShardEntry, entry_to_json, latest_snapshot_id
from shardflow.storage.store import ObjectStore

Row = Mapping[str, Any]
"""``{tensor name: array-like, "sample_id": str, "device_id": str, "produced_at": int, "attributes": dict}``"""


def shard_file_bytes(spec: DatasetSpec, shard_id: str, rows: Sequence[Row], chunk_rows: Optional[int] = None) -> bytes:
    """One shard file in the FORMAT.md layout, as bytes: tensors contiguous, or with ``chunk_rows``
    chunked by that many rows and compressed as the spec says (as the C-library writer stores them)."""
    if not rows:
        raise ValueError("a shard has at least one row")
    storage = _storage(spec, chunk_rows)
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        f.attrs["shardflow_format"] = np.int32(1)
        f.attrs["dataset"] = spec.name
        f.attrs["version"] = spec.version
        f.attrs["shard_id"] = shard_id
        f.attrs["spec_fingerprint"] = spec.fingerprint
        f.attrs["sample_count"] = np.int64(len(rows))
        group = f.create_group("tensors")
        for t in spec.tensors:
            if t.variable:
                _variable(group, t, [r[t.name] for r in rows], storage)
                continue
            values = np.stack([np.asarray(r[t.name], dtype=t.numpy_dtype).reshape(t.shape) for r in rows])
            stored = values.astype(np.uint8) if t.dtype == "bool" else values
            group.create_dataset(t.name, data=stored, **storage(stored.shape)).attrs["shardflow_dtype"] = t.dtype
        _strings(f, "sample_id", [r["sample_id"] for r in rows])
        _strings(f, "device_id", [r.get("device_id", "test-device") for r in rows])
        f.create_dataset("produced_at", data=np.array([int(r.get("produced_at", 0)) for r in rows], dtype=np.int64))
        _strings(f, "attributes", [json.dumps(r.get("attributes", {}), sort_keys=True, separators=(",", ":"))
                                   for r in rows])
    return buffer.getvalue()


def _storage(spec: DatasetSpec, chunk_rows: Optional[int]):
    """create_dataset options of a tensor dataset of some shape: none (contiguous), or chunks of
    ``chunk_rows`` rows with the spec's compression."""
    if chunk_rows is None:
        return lambda shape: {}
    kind, _, level = spec.compression.partition(":")
    filters = {"gzip": {"compression": "gzip", "compression_opts": int(level or 4), "shuffle": True},
               "lzf": {"compression": "lzf", "shuffle": True}}.get(kind, {})
    return lambda shape: dict(filters, chunks=(max(1, min(chunk_rows, shape[0])),) + tuple(shape[1:])) \
        if shape[0] else {}


def _variable(group, t, values, storage) -> None:
    """A string, bytes or free-shape tensor as FORMAT.md's values + offsets (+ shapes) group."""
    if t.dtype == "string":
        rows = [np.frombuffer(v.encode("utf-8"), dtype=np.uint8) for v in values]
    elif t.dtype == "bytes":
        rows = [np.frombuffer(bytes(v), dtype=np.uint8) for v in values]
    else:
        rows = [np.asarray(v, dtype=t.numpy_dtype) for v in values]
    g = group.create_group(t.name)
    g.attrs["shardflow_dtype"] = t.dtype
    g.attrs["shardflow_shape"] = "" if t.encoding else t.shape_text()
    if t.encoding:
        g.attrs["shardflow_encoding"] = t.encoding
    flat = np.concatenate([r.reshape(-1) for r in rows]).astype(t.numpy_dtype)
    g.create_dataset("values", data=flat, **storage(flat.shape))
    g.create_dataset("offsets", data=np.concatenate([[0], np.cumsum([r.size for r in rows])]).astype(np.int64))
    if t.dtype not in ("string", "bytes"):
        g.create_dataset("shapes", data=np.array([r.shape for r in rows], dtype=np.int64).reshape(len(rows), len(t.shape)))


def _strings(f: h5py.File, name: str, values: List[str]) -> None:
    encoded = [v.encode("utf-8") for v in values]
    width = max(1, max(len(v) for v in encoded))
    ds = f.create_dataset(name, shape=(len(encoded),), dtype=h5py.string_dtype("utf-8", width))
    # Fixed-length UTF-8, as jHDF writes; h5py has no conversion from numpy's "S" for it, so the
    # bytes go in with the file's own type as the memory type.
    ds.id.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array(encoded, dtype=f"S{width}"), mtype=ds.id.get_type())


class DatasetWriter:
    """Creates a dataset version and commits shards to it, create-only, as shard-sink would: each
    shard with a page index of ``page_size`` pages (FORMAT.md), or none when it is None (as shards
    written before page indexes); tensors chunked by ``chunk_rows`` rows if given."""

    def __init__(self, store: ObjectStore, spec: DatasetSpec, committer: str = "shardflow-testing",
                 page_size: Optional[int] = DEFAULT_PAGE_SIZE, chunk_rows: Optional[int] = None):
        self.store = store
        self.spec = spec
        self.committer = committer
        self.page_size = page_size
        self.chunk_rows = chunk_rows

    def create(self) -> None:
        key = layout.spec_key(self.spec.name, self.spec.version)
        if not self.store.put_if_absent(key, json.dumps(spec_to_json(self.spec), indent=2).encode()):
            raise FileExistsError(f"{key} already exists")

    def put_shard(self, lane: int, sequence: int, rows: Sequence[Row]) -> Tuple[ShardEntry, bytes]:
        """Uploads one shard; returns its log entry (snapshot_id 0 until committed) and its bytes."""
        name, version = self.spec.name, self.spec.version
        shard_id = layout.shard_id(name, version, lane, sequence)
        data = shard_file_bytes(self.spec, shard_id, rows, self.chunk_rows)
        key = layout.shard_key(name, version, lane, sequence)
        if not self.store.put_if_absent(key, data):
            raise FileExistsError(f"{key} already exists")
        produced = [int(r.get("produced_at", 0)) for r in rows]
        return ShardEntry(shard_id=shard_id, object_key=key, lane=lane, sequence=sequence, sample_count=len(rows),
                          bytes=len(data), sha256=hashlib.sha256(data).hexdigest(),
                          spec_fingerprint=self.spec.fingerprint, first_produced_at=min(produced),
                          last_produced_at=max(produced), snapshot_id=0,
                          page_index_sha256=self._put_page_index(key, data)), data

    def _put_page_index(self, shard_key: str, data: bytes) -> Optional[str]:
        """Stores the shard's page index after the shard, as shard-sink does; its SHA-256 for the entry."""
        if self.page_size is None:
            return None
        index = encode_page_index(build_page_index(data, self.page_size))
        key = page_index_key(shard_key)
        if not self.store.put_if_absent(key, index) and self.store.get(key) != index:
            raise FileExistsError(f"{key} already exists with other bytes")
        return hashlib.sha256(index).hexdigest()

    def commit(self, shards: Sequence[ShardEntry], snapshot_id: Optional[int] = None) -> int:
        """Writes the next log entry (create-only) adding ``shards``; returns its snapshot id."""
        name, version = self.spec.name, self.spec.version
        if snapshot_id is None:
            snapshot_id = latest_snapshot_id(self.store, name, version) + 1
        entry = CommitEntry(snapshot_id, self.committer,
                            datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                            tuple(shards))
        key = layout.commit_key(name, version, snapshot_id)
        if not self.store.put_if_absent(key, json.dumps(entry_to_json(entry), indent=2).encode()):
            raise FileExistsError(f"{key} already exists: another committer took snapshot {snapshot_id}")
        return snapshot_id

    def add(self, shards_rows: Sequence[Tuple[int, int, Sequence[Row]]]) -> int:
        """Uploads shards ``(lane, sequence, rows)`` and commits them as one new snapshot."""
        return self.commit([self.put_shard(lane, seq, rows)[0] for lane, seq, rows in shards_rows])


def rows_for(spec: DatasetSpec, ids: Sequence[int], device: str = "test-device") -> List[Dict[str, Any]]:
    """Deterministic rows for sample numbers ``ids``: every tensor value derives from the number, so a
    test can recompute what it should read (``expected_tensor``)."""
    return [dict({t.name: expected_tensor(t, n) for t in spec.tensors}, sample_id=f"s-{n:06d}", device_id=device,
                 produced_at=1_700_000_000_000 + n, attributes={"n": str(n)}) for n in ids]


def expected_tensor(t, n: int) -> np.ndarray:
    size = int(np.prod(t.shape)) if t.shape else 1
    if t.dtype == "bool":
        values = (np.arange(size) + n) % 2 == 0
    else:
        values = (np.arange(size) + n * 7) % 97
    return values.astype(t.numpy_dtype).reshape(t.shape)


def write_checkpoint(store: ObjectStore, dataset: str, version: str, snapshot_id: int) -> str:
    """Writes the checkpoint of snapshot ``snapshot_id`` from the log entries, as the Java
    CheckpointCodec does (gzip-compressed JSON); returns its key."""
    import gzip

    from shardflow.reading.log import read_entries

    entries = read_entries(store, dataset, version, 1, snapshot_id)
    offsets: Dict[str, int] = {}
    for e in entries:
        raw = json.loads(store.get(layout.commit_key(dataset, version, e.snapshot_id)))
        offsets.update(raw.get("sourceOffsets", {}))
    shards = [s for e in entries for s in entry_to_json(e)["addedShards"]]
    body = {"formatVersion": 1, "dataset": dataset, "version": version, "snapshotId": snapshot_id,
            "sourceOffsets": offsets,
            "commits": [{"snapshotId": e.snapshot_id, "committer": e.committer, "committedAt": e.committed_at,
                         "addedShardCount": len(e.added_shards)} for e in entries],
            "shards": shards}
    key = layout.checkpoint_key(dataset, version, snapshot_id)
    if not store.put_if_absent(key, gzip.compress(json.dumps(body, separators=(",", ":")).encode())):
        raise FileExistsError(f"{key} already exists")
    return key
