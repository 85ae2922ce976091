"""A dataset version pinned to one snapshot: its spec, its shards (from the log), and its samples."""

from __future__ import annotations

import operator
import os
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from shardflow.errors import FormatError, ShardflowError
from shardflow.format import layout
from shardflow.format.rows import ShardRows
from shardflow.format.shard import Shard, read_shard
from shardflow.format.spec import DatasetSpec, parse_spec
from shardflow.reading.batchiter import BatchIterator, read_batches
from shardflow.reading.cache import DEFAULT_LIMIT_BYTES, DEFAULT_REVERIFY_AFTER, NoCache, ShardCache
from shardflow.reading.fastpath import DEFAULT_THREADS
from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD, ShardFetcher
from shardflow.reading.log import CommitLog, ShardEntry, Snapshot
from shardflow.reading.options import DEFAULT_SHUFFLE_BLOCK, StreamOptions
from shardflow.reading.randomaccess import RandomAccess
from shardflow.reading.reader import SampleIterator, read_samples
from shardflow.reading.sample import METADATA_KEYS, Sample, ShardSource
from shardflow.storage.store import ObjectStore, S3Settings, open_store


class Dataset(ShardSource):
    """``Dataset("s3://shardflow", "demo", "v1")``: dataset ``demo`` version ``v1``, pinned to its
    latest snapshot (or to ``snapshot``).

    S3 settings come from ``s3`` (a dict with ``endpoint``, ``access_key``, ``secret_key``,
    ``region``, an :class:`~shardflow.storage.store.S3Settings`, or any :class:`~shardflow.storage.store.ObjectStore`),
    else from ``SHARDFLOW_S3_ENDPOINT`` / ``SHARDFLOW_S3_ACCESS_KEY`` / ``SHARDFLOW_S3_SECRET_KEY``,
    else the standard ``AWS_*`` variables. ``cache_dir=False`` keeps no local copies (every read
    downloads and verifies afresh: for machines without disk to spare); else shards are cached in ``cache_dir`` (default
    ``$SHARDFLOW_CACHE_DIR`` or ``~/.cache/shardflow/shards``) up to ``cache_limit_bytes``, a cached
    file checked again when opened unless a reader checked it less than ``cache_reverify_after``
    seconds ago (0: every time).

    ``ds[i]``, ``ds[a:b]`` and :meth:`get_many` read samples by index in snapshot order (each shard's
    rows in commit-log order of the shards), fetching only the pages of a shard they need, each
    verified (:mod:`shardflow.reading.randomaccess`).

    Picklable: DataLoader workers get a copy that opens its own S3 connections.
    """

    def __init__(self, uri: str, name: str, version: str, snapshot: Optional[int] = None, *,
                 s3: Union[None, ObjectStore, S3Settings, Mapping[str, str]] = None,
                 cache_dir: Union[str, os.PathLike, None, bool] = None,
                 cache_limit_bytes: Optional[int] = DEFAULT_LIMIT_BYTES,
                 cache_reverify_after: float = DEFAULT_REVERIFY_AFTER):
        self.uri = uri
        self.name = layout.require_name("dataset name", name)
        self.version = layout.require_name("dataset version", version)
        self.store = open_store(uri, s3)
        self.cache = NoCache() if cache_dir is False else ShardCache(cache_dir, cache_limit_bytes, cache_reverify_after)
        self.spec = self._read_spec()
        self.log = CommitLog(self.store, name, version)
        self._snapshot = self.log.snapshot(snapshot)
        self.pinned_by_caller = snapshot is not None

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

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_random", None)  # open files and threads stay with the process that made them
        return state

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

    def open_rows(self, shard: ShardEntry, data) -> ShardRows:
        """The shard's bytes opened for taking single rows, checked against the spec and the entry."""
        if shard.spec_fingerprint != self.spec.fingerprint:
            raise FormatError(f"shard {shard.shard_id} was written for spec fingerprint {shard.spec_fingerprint}, "
                              f"but {self.name}/{self.version} has {self.spec.fingerprint}")
        return ShardRows(data, self.spec, shard.shard_id, shard.sample_count)

    # ---- random access ----------------------------------------------------------------------

    def random_access(self, **options) -> RandomAccess:
        """This process's :class:`~shardflow.reading.randomaccess.RandomAccess` on the pinned snapshot;
        ``options`` (``page_cache_bytes``, ``open_shards``, ``threads``) make a new one with them."""
        current = self.__dict__.get("_random")
        if options or current is None or current.snapshot is not self._snapshot or current.dataset is not self:
            if current is not None and current.dataset is self:
                current.close()
            current = RandomAccess(self, self._snapshot, **options)
            self._random = current
        return current

    def __getitem__(self, index: Union[int, slice]) -> Union[Sample, List[Sample]]:
        """Sample ``index`` of the pinned snapshot (negative from the end), or a list for a slice."""
        if isinstance(index, slice):
            return self.get_many(range(*index.indices(len(self))))
        return self.random_access().get(operator.index(index))

    def get_many(self, indices: Sequence[int], attributes: bool = False) -> List[Sample]:
        """The samples at ``indices`` (in that order), their pages fetched in parallel."""
        return self.random_access().get_many([operator.index(i) for i in indices], attributes)

    def locate(self, index: int) -> Tuple[ShardEntry, int]:
        """The shard entry holding sample ``index``, and the sample's row in it."""
        return self.random_access().locate(operator.index(index))

    # ---- samples ----------------------------------------------------------------------------

    def samples(self, *, seed: int = 0, epoch: int = 0, shuffle_shards: bool = True,
                shuffle_block: int = DEFAULT_SHUFFLE_BLOCK, rank: int = 0, world_size: int = 1,
                drop_last: bool = False, attributes: bool = False, prefetch: int = DEFAULT_PREFETCH,
                range_size: int = DEFAULT_RANGE_SIZE, range_threshold: int = DEFAULT_RANGE_THRESHOLD,
                resume: Optional[Mapping[str, Any]] = None, allow_snapshot_change: bool = False) -> SampleIterator:
        """Rank ``rank`` of ``world_size``'s samples of one epoch of the pinned snapshot, by the rules
        of docs/READING-RULES.md: every rank the same count, every sample once across ranks (apart
        from declared padding). ``resume`` is a state (:meth:`SampleIterator.state_dict` of any rank,
        or of a run with another ``world_size``): the epoch goes on with the samples not yet consumed.
        """
        return read_samples(self, seed=seed, epoch=epoch, shuffle_shards=shuffle_shards, shuffle_block=shuffle_block,
                            rank=rank, world_size=world_size, drop_last=drop_last, attributes=attributes,
                            prefetch=prefetch, range_size=range_size, range_threshold=range_threshold, resume=resume,
                            allow_snapshot_change=allow_snapshot_change)

    def batches(self, batch_size: int, *, seed: int = 0, epoch: int = 0, shuffle_shards: bool = True,
                shuffle_block: int = DEFAULT_SHUFFLE_BLOCK, rank: int = 0, world_size: int = 1,
                drop_last: bool = False, attributes: bool = False, prefetch: int = DEFAULT_PREFETCH,
                range_size: int = DEFAULT_RANGE_SIZE, range_threshold: int = DEFAULT_RANGE_THRESHOLD,
                threads: int = DEFAULT_THREADS, resume: Optional[Mapping[str, Any]] = None,
                allow_snapshot_change: bool = False) -> BatchIterator:
        """The same samples as :meth:`samples`, in the same order, as whole batches of contiguous
        arrays (:class:`~shardflow.reading.batch.Batch`): the fast path. ``threads`` batches are
        assembled at once; the resume state is the same as :meth:`samples`' (any batch size)."""
        return read_batches(self, batch_size, seed=seed, epoch=epoch, shuffle_shards=shuffle_shards,
                            shuffle_block=shuffle_block, rank=rank, world_size=world_size, drop_last=drop_last,
                            attributes=attributes, prefetch=prefetch, range_size=range_size,
                            range_threshold=range_threshold, threads=threads, resume=resume,
                            allow_snapshot_change=allow_snapshot_change)


__all__ = ["Dataset", "SampleIterator", "Sample", "BatchIterator"]
