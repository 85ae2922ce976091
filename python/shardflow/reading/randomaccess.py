"""Random access to one pinned snapshot: sample ``i`` read with ranged GETs of just the pages it
needs, each verified against the shard's page index (dataset/FORMAT.md, "Page index").

Index ``i`` counts samples in snapshot order: the snapshot's shards in commit-log order, each
shard's rows in file order (what ``Dataset.samples(shuffle_shards=False, shuffle_block=0)``
yields). Sample ``i`` is found by a binary search over the shards' cumulative counts.

Where a shard's bytes come from, best first:

1. the shard cache (:mod:`shardflow.reading.cache`) holds the whole file: read from it;
2. the shard's entry names a page index: the index (one small GET, checked against the entry), then
   the pages HDF5 touches (the file's metadata, then the row's bytes, or the chunk holding it), in
   ranged GETs of runs of missing pages, each page checked before use and kept in a page cache;
3. no page index (shards written before there were any), or an index that is missing or does not
   match its entry (logged): the whole shard, downloaded, verified and cached as the streaming
   reader does.
"""

from __future__ import annotations

import atexit
import bisect
import itertools
import logging
import os
import threading
import weakref
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Sequence, Tuple

import h5py

from shardflow.errors import FormatError
from shardflow.format.entries import ShardEntry, Snapshot
from shardflow.format.pages import DEFAULT_PAGE_SIZE, PageIndex, page_index_key, parse_page_index
from shardflow.format.shard import _BufferFile
from shardflow.format.single import SingleRows
from shardflow.reading.pagedfile import (DEFAULT_PAGE_CACHE_BYTES, FetchStats, PageCache, PagedShardFile, ShardPages,
                                        read_range)
from shardflow.reading.sample import Sample

log = logging.getLogger(__name__)

DEFAULT_OPEN_SHARDS = 16
DEFAULT_THREADS = 8
_LIVE: "weakref.WeakSet[RandomAccess]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    # HDF5 files over Python file objects must be closed before the interpreter tears the objects
    # down: left to the end, the library may call into a file object already gone (a crash at exit).
    for random_access in list(_LIVE):
        random_access.close()


class _OpenShard:
    def __init__(self, shard: ShardEntry, rows: SingleRows, pages: Optional[ShardPages], keep: Any):
        self.shard = shard
        self.rows = rows
        self.pages = pages
        self._keep = keep  # the file object or buffer h5py reads

    def close(self) -> None:
        try:
            self.rows.file.close()
        except Exception:  # noqa: BLE001 - closing must never hide the error being handled
            pass


class RandomAccess:
    """Samples of ``dataset`` (a :class:`~shardflow.Dataset`) at ``snapshot`` by index, for one process.

    ``page_cache_bytes`` bounds the verified pages kept in memory, ``open_shards`` the shard files
    kept open (their HDF5 metadata parsed), ``threads`` the ranged GETs in flight for
    :meth:`get_many`. Thread-safe (reads of one instance take turns: HDF5 runs one call at a time).
    """

    def __init__(self, dataset, snapshot: Snapshot, *, page_cache_bytes: int = DEFAULT_PAGE_CACHE_BYTES,
                 open_shards: int = DEFAULT_OPEN_SHARDS, threads: int = DEFAULT_THREADS):
        if open_shards < 1 or threads < 1:
            raise ValueError(f"open_shards and threads must be >= 1, got {open_shards} and {threads}")
        self.dataset = dataset
        self.snapshot = snapshot
        self.pages = PageCache(page_cache_bytes)
        self.stats = FetchStats()
        self.open_shards = open_shards
        self.threads = threads
        self._ends = list(itertools.accumulate(s.sample_count for s in snapshot.shards))
        self._open: "OrderedDict[str, _OpenShard]" = OrderedDict()
        self._indexes: Dict[str, Optional[PageIndex]] = {}
        self._lock = threading.RLock()
        self._stats_lock = threading.Lock()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._pid = os.getpid()
        _LIVE.add(self)

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def locate(self, index: int) -> Tuple[ShardEntry, int]:
        """The shard holding sample ``index`` of the snapshot (negative counts from the end), and its row."""
        n = len(self)
        position = int(index)
        if position < 0:
            position += n
        if not 0 <= position < n:
            raise IndexError(f"sample index {index} is out of range for snapshot {self.snapshot.snapshot_id} of "
                             f"{self.snapshot.dataset}/{self.snapshot.version} ({n} samples)")
        k = bisect.bisect_right(self._ends, position)
        return self.snapshot.shards[k], position - (self._ends[k - 1] if k else 0)

    def get(self, index: int, attributes: bool = False) -> Sample:
        return self.get_many([index], attributes)[0]

    def get_many(self, indices: Sequence[int], attributes: bool = False) -> List[Sample]:
        """Samples at ``indices``, in that order: the pages they need fetched in parallel first."""
        self._check_process()  # before taking a lock a forked child may have inherited held
        located = [self.locate(i) for i in indices]
        by_shard: "OrderedDict[str, Tuple[ShardEntry, List[int]]]" = OrderedDict()
        for shard, row in located:
            by_shard.setdefault(shard.shard_id, (shard, []))[1].append(row)
        with self._lock:
            try:
                self._open_many([shard for shard, _ in by_shard.values()])
                # every shard of the call stays open until its rows are read, however many they are
                opened = {sid: self._shard(shard, evict=False) for sid, (shard, _) in by_shard.items()}
                self._prefetch([(opened[sid], opened[sid].rows.spans(sorted(set(rows))))
                                for sid, (_, rows) in by_shard.items()])
                self._prefetch([(opened[sid], opened[sid].rows.value_spans(sorted(set(rows))))
                                for sid, (_, rows) in by_shard.items()])
                return [Sample(opened[shard.shard_id].rows.row(row, attributes)) for shard, row in located]
            finally:
                self._evict()

    def close(self) -> None:
        with self._lock:
            for opened in self._open.values():
                opened.close()
            self._open.clear()
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None

    # ---- shards -------------------------------------------------------------------------------

    def _check_process(self) -> None:
        if self._pid != os.getpid():  # forked: the parent's files, threads and locks are not ours
            self._open = OrderedDict()
            self._pool = None
            self._lock = threading.RLock()
            self._stats_lock = threading.Lock()
            self.pages = PageCache(self.pages.limit_bytes)
            self._pid = os.getpid()

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="shardflow-pages")
        return self._pool

    def _shard(self, shard: ShardEntry, evict: bool = True) -> _OpenShard:
        self._check_process()
        opened = self._open.get(shard.shard_id)
        if opened is not None:
            self._open.move_to_end(shard.shard_id)
            return opened
        opened = self._open_shard(shard)
        self._open[shard.shard_id] = opened
        if evict:
            self._evict()
        return opened

    def _evict(self) -> None:
        while len(self._open) > self.open_shards:
            self._open.popitem(last=False)[1].close()

    def _open_many(self, shards: List[ShardEntry]) -> None:
        """Fetches in parallel what opening these shards starts with: page index and first page."""
        self._check_process()
        cold = [s for s in shards if s.shard_id not in self._open]
        if len(cold) > 1:
            list(self._executor().map(self._warm, cold))

    def _warm(self, shard: ShardEntry) -> None:
        if self.dataset.cache.lookup(shard) is None:
            index = self._index(shard)
            if index is not None:
                self._pages_of(shard, index).read(0, 1)  # the superblock's page

    def _index_and_first_page(self, shard: ShardEntry) -> Tuple[Optional[PageIndex], Optional[ShardPages]]:
        """The page index, and the pages with page 0 (where HDF5 starts) already in: both GETs at
        once when the index is not known yet, page 0 fetched at the writers' page size."""
        first = None
        if shard.page_index_sha256 and shard.shard_id not in self._indexes:
            first = self._executor().submit(read_range, self.dataset.store, shard, 0,
                                            min(DEFAULT_PAGE_SIZE, shard.bytes), self.stats, self._stats_lock)
        index = self._index(shard)
        pages = self._pages_of(shard, index) if index is not None else None
        if first is not None:
            data = first.result()
            if pages is not None:
                pages.accept(0, data)
        return index, pages

    def _open_shard(self, shard: ShardEntry) -> _OpenShard:
        spec = self.dataset.spec
        if shard.spec_fingerprint != spec.fingerprint:
            raise FormatError(f"shard {shard.shard_id} was written for spec fingerprint {shard.spec_fingerprint}, "
                              f"but {spec.name}/{spec.version} has {spec.fingerprint}")
        pages = None
        source: Any = self.dataset.cache.lookup(shard)
        if source is None:
            _, pages = self._index_and_first_page(shard)
            if pages is not None:
                source = PagedShardFile(pages)
            else:
                with self._stats_lock:
                    self.stats.whole_shards += 1
                source = self.dataset.shard_bytes(shard)
        opened = source if pages is not None else _BufferFile(source)
        try:
            f = h5py.File(opened, "r")
        except OSError as e:
            raise FormatError(f"shard {shard.shard_id} ({shard.object_key}) is not a readable shard file: {e}") from e
        try:
            return _OpenShard(shard, SingleRows(f, spec, shard.shard_id, shard.sample_count), pages, source)
        except BaseException:
            f.close()
            raise

    def _pages_of(self, shard: ShardEntry, index: PageIndex) -> ShardPages:
        return ShardPages(self.dataset.store, shard, index, self.pages, self.stats, self._stats_lock)

    def _index(self, shard: ShardEntry) -> Optional[PageIndex]:
        """The shard's verified page index, or None to read the shard whole (none, or unusable)."""
        if not shard.page_index_sha256:
            return None
        if shard.shard_id in self._indexes:
            return self._indexes[shard.shard_id]
        key = page_index_key(shard.object_key)
        data = self.dataset.store.get(key)
        with self._stats_lock:
            self.stats.index_gets += 1
        index = None
        if data is None:
            log.warning("Shard %s names page index %s, which does not exist: reading the shard whole",
                        shard.shard_id, key)
        else:
            try:
                index = parse_page_index(data, shard, key)
            except FormatError as e:
                log.warning("%s; reading shard %s whole", e, shard.shard_id)
        self._indexes[shard.shard_id] = index
        return index

    def _prefetch(self, work: List[Tuple[_OpenShard, List[Tuple[int, int]]]]) -> None:
        """Fetches the pages of these spans that are not cached, every run of them in parallel."""
        runs = [(opened.pages, run) for opened, spans in work if opened.pages is not None and spans
                for run in opened.pages.missing_runs(spans)]
        if len(runs) == 1:
            runs[0][0].fetch(*runs[0][1])
        elif runs:
            for future in [self._executor().submit(pages.fetch, *run) for pages, run in runs]:
                future.result()
