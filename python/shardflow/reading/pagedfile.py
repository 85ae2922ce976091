"""A shard read a page at a time: ranged GETs of just the pages HDF5 touches, each page verified
against the shard's page index (dataset/FORMAT.md, "Page index") before a byte of it is used.

:class:`ShardPages` fetches runs of missing pages in one ranged GET each and keeps verified pages in
a :class:`PageCache` shared by all shards of a reader (least recently used dropped past its limit);
:class:`PagedShardFile` is the file object h5py opens over them.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple

from shardflow.errors import ChecksumError, PageChecksumError
from shardflow.format.entries import ShardEntry
from shardflow.format.pages import PageIndex
from shardflow.storage.store import ObjectStore

DEFAULT_PAGE_CACHE_BYTES = 256 << 20


@dataclass
class FetchStats:
    """What random access fetched in this process: ranged GETs of pages, and their bytes."""

    page_gets: int = 0
    page_bytes: int = 0
    pages_verified: int = 0
    index_gets: int = 0
    whole_shards: int = 0


class PageCache:
    """Verified pages, keyed by (shard sha256, page), least recently used dropped past ``limit_bytes``."""

    def __init__(self, limit_bytes: int = DEFAULT_PAGE_CACHE_BYTES):
        if limit_bytes < 0:
            raise ValueError(f"page cache limit must be >= 0 bytes, got {limit_bytes}")
        self.limit_bytes = limit_bytes
        self._pages: "OrderedDict[Tuple[str, int], bytes]" = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: Tuple[str, int]) -> Optional[bytes]:
        with self._lock:
            data = self._pages.get(key)
            if data is not None:
                self._pages.move_to_end(key)
            return data

    def put(self, key: Tuple[str, int], data: bytes) -> None:
        with self._lock:
            if key in self._pages:
                return
            self._pages[key] = data
            self._bytes += len(data)
            while self._bytes > self.limit_bytes and len(self._pages) > 1:
                _, dropped = self._pages.popitem(last=False)
                self._bytes -= len(dropped)

    @property
    def size_bytes(self) -> int:
        return self._bytes


class ShardPages:
    """The verified pages of one shard, fetched on demand."""

    def __init__(self, store: ObjectStore, shard: ShardEntry, index: PageIndex, cache: PageCache, stats: FetchStats,
                 stats_lock: threading.Lock):
        self.store = store
        self.shard = shard
        self.index = index
        self.cache = cache
        self.stats = stats
        self._stats_lock = stats_lock

    @property
    def size(self) -> int:
        return self.shard.bytes

    def read(self, start: int, length: int) -> bytes:
        """Bytes ``start .. start + length`` (clipped to the shard), every page of them verified."""
        end = min(start + length, self.size)
        if end <= start:
            return b""
        size = self.index.page_size
        first, last = start // size, (end - 1) // size
        pages = self._pages(first, last)
        if first == last:
            offset = start - first * size
            return pages[0][offset:offset + end - start]
        joined = b"".join(pages)
        offset = start - first * size
        return joined[offset:offset + end - start]

    def missing_runs(self, spans: Iterable[Tuple[int, int]]) -> List[Tuple[int, int]]:
        """Runs ``(first page, last page)`` of the pages of these ``(start, length)`` spans that are
        not cached: one ranged GET each (:meth:`fetch`), which may run in parallel."""
        wanted = set()
        size = self.index.page_size
        for start, length in spans:
            end = min(start + length, self.size)
            if end > start:
                wanted.update(range(start // size, (end - 1) // size + 1))
        return self._runs(sorted(p for p in wanted if self.cache.get(self._key(p)) is None))

    def fetch(self, first: int, last: int) -> None:
        self._fetch(first, last)

    def accept(self, page: int, data: bytes) -> bool:
        """Keeps ``data``, fetched before this index was known, as page ``page`` if it is exactly
        that page (size and hash); else drops it (the page is fetched when needed)."""
        if page >= self.index.page_count or len(data) != self.index.page_span(page)[1] \
                or hashlib.sha256(data).hexdigest() != self.index.pages[page]:
            return False
        self.cache.put(self._key(page), bytes(data))
        with self._stats_lock:
            self.stats.pages_verified += 1
        return True

    def _pages(self, first: int, last: int) -> List[bytes]:
        pages: List[Optional[bytes]] = [self.cache.get(self._key(p)) for p in range(first, last + 1)]
        missing = [first + k for k, page in enumerate(pages) if page is None]
        if missing:
            fetched = {}
            for run in self._runs(missing):
                fetched.update(self._fetch(*run))
            pages = [page if page is not None else fetched[first + k] for k, page in enumerate(pages)]
        return pages  # type: ignore[return-value]

    @staticmethod
    def _runs(pages: List[int]) -> List[Tuple[int, int]]:
        """Sorted page numbers as runs ``(first, last)`` of consecutive pages: one GET each."""
        runs: List[Tuple[int, int]] = []
        for p in pages:
            if runs and runs[-1][1] == p - 1:
                runs[-1] = (runs[-1][0], p)
            else:
                runs.append((p, p))
        return runs

    def _key(self, page: int) -> Tuple[str, int]:
        return self.shard.sha256, page

    def _fetch(self, first: int, last: int) -> dict:
        """Pages ``first..last`` in one ranged GET, each verified (fetched once more if it fails:
        a transfer error is not a damaged object), then cached."""
        data = self._get(first, last)
        out = {}
        for page in range(first, last + 1):
            start, length = self.index.page_span(page)
            offset = start - first * self.index.page_size
            chunk = bytes(data[offset:offset + length])
            if hashlib.sha256(chunk).hexdigest() != self.index.pages[page]:
                again = bytes(self._get(page, page))
                actual = hashlib.sha256(again).hexdigest()
                if actual != self.index.pages[page]:
                    raise PageChecksumError(self.shard.shard_id, self.shard.object_key, page, start, length,
                                            self.index.pages[page], actual)
                chunk = again
            self.cache.put(self._key(page), chunk)
            out[page] = chunk
        with self._stats_lock:
            self.stats.pages_verified += last - first + 1
        return out

    def _get(self, first: int, last: int) -> memoryview:
        start = self.index.page_span(first)[0]
        end = sum(self.index.page_span(last))
        return read_range(self.store, self.shard, start, end - start, self.stats, self._stats_lock)


def read_range(store: ObjectStore, shard: ShardEntry, start: int, length: int, stats: FetchStats,
               stats_lock: threading.Lock) -> memoryview:
    """Bytes ``start .. start + length`` of the shard object in one ranged GET (not verified)."""
    buffer = bytearray(length)
    size = store.read_into(shard.object_key, memoryview(buffer), start)
    if size != shard.bytes:
        raise ChecksumError(shard.shard_id, shard.object_key, shard.sha256, "(not read)", shard.bytes, size,
                            "on a ranged read (the object has another size)")
    with stats_lock:
        stats.page_gets += 1
        stats.page_bytes += len(buffer)
    return memoryview(buffer)


class PagedShardFile(io.RawIOBase):
    """A read-only file over :class:`ShardPages`, for ``h5py.File``."""

    def __init__(self, pages: ShardPages):
        super().__init__()
        self._pages = pages
        self._pos = 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def readinto(self, b):
        data = self._pages.read(self._pos, len(b))
        n = len(data)
        b[:n] = data
        self._pos += n
        return n

    def seek(self, offset, whence=io.SEEK_SET):
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._pages.size}[whence]
        self._pos = base + offset
        return self._pos

    def tell(self):
        return self._pos
