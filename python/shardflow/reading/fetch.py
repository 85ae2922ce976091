"""Download-ahead of one reader's shards: a bounded number in flight, big ones as parallel ranged GETs.

A reader schedules the shard it is about to decode and the next ``depth`` of its own order; each is
taken from the verified cache, or downloaded into one buffer of exactly the size the commit log
gives (the cache file itself, mapped, so the cache costs no second copy; memory without a cache): in one GET below ``range_threshold`` bytes, else as ranges of ``range_size`` bytes fetched in
parallel straight into their place in that buffer (no reassembly copy). The part that finishes last
verifies the SHA-256, moves the file into the cache and hands the bytes to the reader (when the
cache file could not be made, one writer thread writes it afterwards), so no GET thread waits for
another task, and the GETs in flight never exceed ``depth`` (one pool of ``depth`` threads runs
every GET).

What is scheduled never changes what is read: the order comes from the stream alone, and a shard
that was not scheduled (``depth`` 0) is fetched on the spot, its ranges one after another.

Every DataLoader worker of every rank on a machine reads rows of the same shards (the epoch order
is global), so a download into the shared cache directory is done by one of them: it holds the
shard's lock file (``flock``), and the others look for the cached file again every 20 ms, without
holding a GET thread while they wait.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence, Set, Tuple

from shardflow.format.entries import ShardEntry
from shardflow.reading.cache import NoCache, ShardCache
from shardflow.reading.cachefiles import Buffer, DownloadLock, PartFile
from shardflow.storage.store import ObjectStore

log = logging.getLogger(__name__)

DEFAULT_PREFETCH = 4
"""Shards downloaded ahead of the one being decoded, and GETs in flight, per reader."""
DEFAULT_RANGE_SIZE = 8 << 20
DEFAULT_RANGE_THRESHOLD = 16 << 20
_LOCK_RETRY_S = 0.02
"""How soon a reader looks again for a shard another reader of the same cache is downloading."""


def check_fetch_options(prefetch: int, range_size: int, range_threshold: int) -> None:
    if prefetch < 0:
        raise ValueError(f"prefetch must be >= 0 shards, got {prefetch}")
    if range_size < 1:
        raise ValueError(f"range_size must be >= 1 byte, got {range_size}")
    if range_threshold < 1:
        raise ValueError(f"range_threshold must be >= 1 byte, got {range_threshold}")


def byte_ranges(size: int, range_size: int, range_threshold: int) -> List[Tuple[int, int]]:
    """``(start, length)`` of each GET for an object of ``size`` bytes: one below the threshold."""
    if size < range_threshold or size <= range_size:
        return [(0, size)]
    return [(start, min(range_size, size - start)) for start in range(0, size, range_size)]


class _Download:
    """One shard being downloaded in parts; the last part to finish completes ``result``."""

    def __init__(self, shard: ShardEntry, parts: int, result: Future, part: Optional[PartFile],
                 lock: DownloadLock, memory=None):
        self.shard = shard
        self.part = part
        self.lock = lock
        self.buffer = part.map if part is not None else (memory if memory is not None else bytearray(shard.bytes))
        self.result = result
        self._left = parts
        self._lock = threading.Lock()
        self.wrong_size = False
        self.error: Optional[BaseException] = None

    def part_done(self, size: int, error: Optional[BaseException]) -> bool:
        """Records one finished part; True for the last one."""
        with self._lock:
            if error is not None and self.error is None:
                self.error = error
            if size != self.shard.bytes:
                self.wrong_size = True
            self._left -= 1
            return self._left == 0


class ShardFetcher:
    """Verified shard bytes for one reader, ``depth`` shards ahead. Not shared between processes:
    make it where it is used (a DataLoader worker makes its own, with its own threads)."""

    def __init__(self, cache: ShardCache, store: ObjectStore, depth: int = DEFAULT_PREFETCH,
                 range_size: int = DEFAULT_RANGE_SIZE, range_threshold: int = DEFAULT_RANGE_THRESHOLD):
        check_fetch_options(depth, range_size, range_threshold)
        self._cache = cache
        self._store = store
        self._range_size = range_size
        self._range_threshold = range_threshold
        self.depth = depth
        self._pool = ThreadPoolExecutor(depth, thread_name_prefix="shardflow-fetch") if depth > 0 else None
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="shardflow-cache-write") if depth > 0 else None
        self._writes = threading.BoundedSemaphore(depth + 1)
        self._pending: Dict[str, Future] = {}
        self._unfinished: Set[_Download] = set()  # downloads with parts still to come
        self._lock = threading.Lock()
        # Without a cache file, download buffers a reader hands back (recycle) are used again: a
        # fresh 12 MB buffer costs its page faults and zeroing, about as much as receiving it.
        self._recyclable = isinstance(cache, NoCache)
        self._free: List[bytearray] = []

    def recycle(self, buffer) -> None:
        """Takes back a buffer :meth:`get` gave, once nothing reads it any more (the fast path,
        whose batches are copies, calls it when it drops a shard); ignored for cache mappings."""
        base = buffer.obj if isinstance(buffer, memoryview) else None
        if self._recyclable and isinstance(base, bytearray):
            with self._lock:
                if len(self._free) <= self.depth + 2:
                    self._free.append(base)

    def _memory(self, size: int):
        """A buffer of exactly ``size`` bytes (a view of a recycled one when one is big enough)."""
        if not self._recyclable:
            return None
        with self._lock:
            fits = [b for b in self._free if len(b) >= size]
            if fits:
                best = min(fits, key=len)
                self._free.remove(best)
                return memoryview(best)[:size]
        return memoryview(bytearray(size))[:size]

    def schedule(self, shards: Sequence[ShardEntry]) -> None:
        """Starts fetching these shards (the next to be read first), at most ``depth + 1`` pending."""
        if self._pool is None:
            return
        for shard in shards:
            if len(self._pending) > self.depth:
                return
            if shard.shard_id not in self._pending:
                result: Future = Future()
                self._pending[shard.shard_id] = result
                self._pool.submit(self._start, shard, result)

    def pending(self) -> List[str]:
        """Ids of the shards scheduled and not yet taken, in schedule order."""
        return list(self._pending)

    def get(self, shard: ShardEntry) -> Buffer:
        """The shard's verified bytes (a writable buffer the caller owns: a private mapping of the
        cache file, or memory), fetched now if it was not scheduled."""
        result = self._pending.pop(shard.shard_id, None)
        if result is None:
            result = Future()
            self._start(shard, result, inline=True)
        return result.result()

    def close(self, wait: bool = True) -> None:
        """Drops what has not started and waits for the GETs and cache writes under way, so no
        thread of this reader outlives it; a download whose remaining parts were dropped leaves no
        part file behind. ``wait=False`` only where waiting would deadlock (a garbage-collector
        finalizer inside Thread.start, ``fastpath.finalized_inside_thread_start``): the threads are
        told to stop and finish on their own."""
        if self._pool is not None:
            self._pool.shutdown(wait=wait, cancel_futures=True)
            self._writer.shutdown(wait=wait)
            self._pending.clear()
            with self._lock:
                dropped, self._unfinished = self._unfinished, set()
            for download in dropped:
                download.lock.release()
                if download.part is not None:
                    download.part.discard()
                if not download.result.done():
                    download.result.set_exception(RuntimeError(f"the reader closed before shard "
                                                               f"{download.shard.shard_id} was downloaded"))

    def _start(self, shard: ShardEntry, result: Future, inline: bool = False) -> None:
        lock: Optional[DownloadLock] = None
        try:
            while True:
                cached = self._cache.lookup(shard)
                if cached is not None:
                    result.set_result(cached)
                    return
                lock = self._cache.try_lock(shard)
                if lock is not None:
                    cached = self._cache.lookup(shard)  # cached by the holder just before we locked?
                    if cached is not None:
                        lock.release()
                        result.set_result(cached)
                        return
                    break
                # Another reader of this cache (a sibling worker, another rank) is downloading it.
                if not inline:  # look again soon, without holding a GET thread meanwhile
                    timer = threading.Timer(_LOCK_RETRY_S, self._resubmit, (shard, result))
                    timer.daemon = True
                    timer.start()
                    return
                time.sleep(_LOCK_RETRY_S)
            parts = byte_ranges(shard.bytes, self._range_size, self._range_threshold)
            part_file = self._cache.open_part(shard)
            download = _Download(shard, len(parts), result, part_file, lock,
                                 None if part_file is not None else self._memory(shard.bytes))
            lock = None  # the download releases it when it ends
            with self._lock:
                self._unfinished.add(download)
            for part in parts[1:]:
                if inline:
                    self._part(download, part)
                else:
                    self._pool.submit(self._part, download, part)
            self._part(download, parts[0])
        except BaseException as e:  # noqa: BLE001 - handed to the reader, raised where it waits
            if lock is not None:
                lock.release()
            if not result.done():
                result.set_exception(e)

    def _resubmit(self, shard: ShardEntry, result: Future) -> None:
        try:
            self._pool.submit(self._start, shard, result)
        except RuntimeError:  # closed meanwhile
            if not result.done():
                result.set_exception(RuntimeError(f"the reader closed before shard {shard.shard_id} was downloaded"))

    def _part(self, download: _Download, part: Tuple[int, int]) -> None:
        start, length = part
        size, error = -1, None
        try:
            size = self._store.read_into(download.shard.object_key, memoryview(download.buffer)[start:start + length],
                                         start)
        except BaseException as e:  # noqa: BLE001
            error = e
        if download.part_done(size, error):
            self._finish(download)

    def _finish(self, download: _Download) -> None:
        with self._lock:
            self._unfinished.discard(download)
        try:
            self._complete(download)
        finally:
            download.lock.release()

    def _complete(self, download: _Download) -> None:
        try:
            if download.error is not None or download.wrong_size:
                if download.part is not None:
                    download.part.discard()
                if download.error is not None:
                    raise download.error
                # The object is not the size the log gives: fetch it whole so the error reports what it is.
                download.result.set_result(self._cache.read(download.shard, self._store))
            elif download.part is not None:
                # Downloaded straight into the cache file: verified and moved into place, nothing to write.
                download.result.set_result(self._cache.admit_part(download.shard, download.part))
            else:
                self._cache.check_download(download.shard, download.buffer)
                download.result.set_result(download.buffer)
                if not self._recyclable:  # nothing to write without a cache
                    self._write_later(download.shard, download.buffer)
        except BaseException as e:  # noqa: BLE001
            download.result.set_exception(e)

    def _write_later(self, shard: ShardEntry, data: bytearray) -> None:
        """Caches verified bytes on the writer thread, so this GET thread goes on downloading;
        blocks while ``depth + 1`` writes are queued (the writes hold their buffers)."""
        if self._writer is None:
            self._cache.keep(shard, data)
            return
        self._writes.acquire()
        try:
            self._writer.submit(self._keep, shard, data)
        except RuntimeError:  # closed meanwhile: nothing more is cached
            self._writes.release()

    def _keep(self, shard: ShardEntry, data: bytearray) -> None:
        try:
            self._cache.keep(shard, data)
        except Exception as e:  # noqa: BLE001 - a cache that cannot be written must not stop training
            log.warning("Cannot cache shard %s: %s", shard.shard_id, e)
        finally:
            self._writes.release()
