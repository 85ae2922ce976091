"""A dataset version pinned to one snapshot: its spec, its shards (from the log), and its samples."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from shardflow.errors import FormatError, ShardflowError
from shardflow.format import layout
from shardflow.format.shard import Shard, read_shard
from shardflow.format.spec import DatasetSpec, parse_spec
from shardflow.reading.cache import DEFAULT_LIMIT_BYTES, NoCache, ShardCache
from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD, ShardFetcher
from shardflow.reading.log import CommitLog, ShardEntry, Snapshot
from shardflow.reading.stream import (
    METADATA_KEYS,
    ResumePoint,
    Sample,
    ShardSource,
    StreamOptions,
    make_state,
    parse_state,
    segments,
    worker_samples,
)
from shardflow.storage.store import ObjectStore, S3Settings, open_store


class Dataset(ShardSource):
    """``Dataset("s3://shardflow", "demo", "v1")``: dataset ``demo`` version ``v1``, pinned to its
    latest snapshot (or to ``snapshot``).

    S3 settings come from ``s3`` (a dict with ``endpoint``, ``access_key``, ``secret_key``,
    ``region``, an :class:`~shardflow.storage.store.S3Settings`, or any :class:`~shardflow.storage.store.ObjectStore`),
    else from ``SHARDFLOW_S3_ENDPOINT`` / ``SHARDFLOW_S3_ACCESS_KEY`` / ``SHARDFLOW_S3_SECRET_KEY``,
    else the standard ``AWS_*`` variables. ``cache_dir=False`` keeps no local copies (every read
    downloads and verifies afresh: for machines without disk to spare); else shards are cached in ``cache_dir`` (default
    ``$SHARDFLOW_CACHE_DIR`` or ``~/.cache/shardflow/shards``) up to ``cache_limit_bytes``.

    Picklable: DataLoader workers get a copy that opens its own S3 connections.
    """

    def __init__(self, uri: str, name: str, version: str, snapshot: Optional[int] = None, *,
                 s3: Union[None, ObjectStore, S3Settings, Mapping[str, str]] = None,
                 cache_dir: Union[str, os.PathLike, None, bool] = None,
                 cache_limit_bytes: Optional[int] = DEFAULT_LIMIT_BYTES):
        self.uri = uri
        self.name = layout.require_name("dataset name", name)
        self.version = layout.require_name("dataset version", version)
        self.store = open_store(uri, s3)
        self.cache = NoCache() if cache_dir is False else ShardCache(cache_dir, cache_limit_bytes)
        self.spec = self._read_spec()
        self.log = CommitLog(self.store, name, version)
        self._snapshot = self.log.snapshot(snapshot)

    def _read_spec(self) -> DatasetSpec:
        key = layout.spec_key(self.name, self.version)
        data = self.store.get(key)
        if data is None:
            raise ShardflowError(f"dataset {self.name}/{self.version} does not exist in {self.uri} ({self.store!r}): "
                                 f"no {key}")
        spec = parse_spec(data, key)
        if (spec.name, spec.version) != (self.name, self.version):
            raise FormatError(f"{key} describes {spec.name}/{spec.version}")
        clash = set(spec.tensor_names) & set(METADATA_KEYS)
        if clash:
            raise FormatError(f"dataset {self.name}/{self.version} has tensors named {sorted(clash)}, which would "
                              f"clash with the sample keys {list(METADATA_KEYS)}")
        return spec

    def __repr__(self):
        return (f"Dataset({self.uri} {self.name}/{self.version} @ snapshot {self.snapshot_id}: "
                f"{len(self.shards)} shards, {len(self)} samples)")

    # ---- the pinned snapshot ----------------------------------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        return self._snapshot

    @property
    def snapshot_id(self) -> int:
        return self._snapshot.snapshot_id

    @property
    def shards(self) -> tuple:
        """The pinned snapshot's shard entries, in commit order."""
        return self._snapshot.shards

    @property
    def label_tensor(self) -> Optional[str]:
        return self.spec.label_tensor

    def __len__(self) -> int:
        return self._snapshot.sample_count

    def refresh(self) -> List[int]:
        """Moves the pin to the latest snapshot; returns the ids of the snapshots that are new."""
        before = self.snapshot_id
        self._snapshot = self.log.snapshot(None)
        return list(range(before + 1, self.snapshot_id + 1))

    def at(self, snapshot_id: int) -> "Dataset":
        """The same dataset pinned to another snapshot (sharing store, cache and log)."""
        other = object.__new__(Dataset)
        other.__dict__.update(self.__dict__)
        other._snapshot = self.log.snapshot(snapshot_id)
        return other

    # ---- shards -----------------------------------------------------------------------------

    def shard_bytes(self, shard: ShardEntry) -> bytearray:
        """The shard file's bytes, from the cache or downloaded, verified against the log entry."""
        return self.cache.read(shard, self.store)

    def shard_fetcher(self, opts: StreamOptions) -> ShardFetcher:
        return ShardFetcher(self.cache, self.store, opts.prefetch, opts.range_size, opts.range_threshold)

    def read_shard(self, shard: ShardEntry, attributes: bool = True) -> Shard:
        """All rows of one shard, verified and checked against the spec."""
        return self.decode_shard(shard, self.shard_bytes(shard), attributes)

    def decode_shard(self, shard: ShardEntry, data: bytearray, attributes: bool) -> Shard:
        if shard.spec_fingerprint != self.spec.fingerprint:
            raise FormatError(f"shard {shard.shard_id} was written for spec fingerprint {shard.spec_fingerprint}, "
                              f"but {self.name}/{self.version} has {self.spec.fingerprint}")
        try:
            rows = read_shard(data, attributes=attributes)
        except (OSError, KeyError, ValueError) as e:
            raise FormatError(f"shard {shard.shard_id} ({shard.object_key}) is not a readable shard file: {e}") from e
        if rows.shard_id != shard.shard_id or len(rows) != shard.sample_count:
            raise FormatError(f"shard file {shard.object_key} holds {rows.shard_id} with {len(rows)} rows, "
                              f"the log says {shard.shard_id} with {shard.sample_count}")
        tensors = {}
        for t in self.spec.tensors:
            values = rows.tensors.get(t.name)
            if t.variable:
                if not isinstance(values, list) or len(values) != shard.sample_count:
                    raise FormatError(f"shard {shard.shard_id}: tensor {t.name!r} should be {shard.sample_count} "
                                      f"rows of {t.dtype} {t.shape_text()}, the file has {type(values).__name__}")
                tensors[t.name] = values
                continue
            expected = (shard.sample_count,) + t.shape
            if values is None or values.shape != expected or values.dtype != t.numpy_dtype:
                got = "nothing" if values is None else f"{values.dtype} {values.shape}"
                raise FormatError(f"shard {shard.shard_id}: tensor {t.name!r} should be {t.dtype} {expected}, "
                                  f"the file has {got}")
            tensors[t.name] = values
        rows.tensors = tensors
        return rows

    # ---- samples ----------------------------------------------------------------------------

    def samples(self, *, seed: int = 0, epoch: int = 0, shuffle_shards: bool = True, shuffle_buffer: int = 1000,
                rank: int = 0, world_size: int = 1, follow: bool = False, poll_interval: float = 5.0,
                follow_timeout: Optional[float] = None, attributes: bool = False,
                prefetch: int = DEFAULT_PREFETCH, range_size: int = DEFAULT_RANGE_SIZE,
                range_threshold: int = DEFAULT_RANGE_THRESHOLD,
                resume: Optional[Mapping[str, Any]] = None) -> "SampleIterator":
        """Iterates reader ``rank`` of ``world_size``'s share of the pinned snapshot, with the same
        order, split, shuffle, follow and resume rules as the PyTorch dataset (:mod:`shardflow.integrations.torch`).

        ``resume`` is a :meth:`SampleIterator.state_dict`: the iterator then yields exactly the
        samples of that epoch this reader had not yet yielded (``epoch`` and the snapshot come from it).
        """
        opts = StreamOptions(seed=seed, epoch=epoch, shuffle_shards=shuffle_shards, shuffle_buffer=shuffle_buffer,
                             follow=follow, poll_interval=poll_interval, follow_timeout=follow_timeout,
                             attributes=attributes, prefetch=prefetch, range_size=range_size,
                             range_threshold=range_threshold)
        point = parse_state(resume, self.name, self.version, opts) if resume is not None else None
        return SampleIterator(self, opts, rank, world_size, point)

    def _stream(self, opts: StreamOptions, g: int, total: int, snapshot_id: int, skip: int,
                clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        snapshot = self._snapshot if snapshot_id == self.snapshot_id else self.log.snapshot(snapshot_id)
        return worker_samples(self, segments(self.log, snapshot, opts, g, total, clock, sleep), opts, g, total, skip)


class SampleIterator:
    """Samples of one reader (see :meth:`Dataset.samples`); ``state_dict()`` at any point resumes
    exactly after the last sample this iterator returned."""

    def __init__(self, dataset: Dataset, opts: StreamOptions, rank: int, world_size: int,
                 resume: Optional[ResumePoint] = None):
        if not 0 <= rank < world_size:
            raise ValueError(f"rank {rank} is not one of 0..{world_size - 1}")
        snapshot_id = dataset.snapshot_id
        skip = 0
        if resume is not None:
            opts = opts.with_epoch(resume.epoch)
            snapshot_id = resume.snapshot_id
            skip = resume.skip_for(rank, world_size)
        self.dataset, self.options, self.rank, self.world_size = dataset, opts, rank, world_size
        self.snapshot_id = snapshot_id
        self._yielded = skip
        self._samples = dataset._stream(opts, rank, world_size, snapshot_id, skip)

    def __iter__(self):
        return self

    def __next__(self) -> Sample:
        sample = next(self._samples)
        self._yielded = sample.position[2] + 1
        return sample

    def close(self) -> None:
        self._samples.close()

    def state_dict(self) -> Dict[str, Any]:
        return make_state(self.dataset.name, self.dataset.version, self.snapshot_id, self.options, self.world_size,
                          {self.rank: self._yielded} if self._yielded else {})


__all__ = ["Dataset", "SampleIterator", "Sample"]
