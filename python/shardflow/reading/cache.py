"""A local, size-limited cache of shard files, verified against the commit log.

Files are named by their SHA-256 (``<dir>/<sha256>.h5``): shards are immutable and content
addressing means two datasets, or two S3 endpoints, can never serve each other a wrong file.

- A shard is downloaded once, into memory, checked for the size and SHA-256 its log entry gives,
  and only then written to the cache (temp file + rename, so a crash leaves no half file).
- A cached file is checked again when it is read (one SHA-256 pass over bytes already in memory),
  so a file damaged on disk is caught, not fed to a trainer; except within ``reverify_after``
  seconds (default 60) of a check by any reader of the directory, recorded in an extended
  attribute of the file: every DataLoader worker of every rank on a machine opens the same shards,
  and one check each would multiply the SHA-256 cost by their number.
- On any mismatch the bad file is deleted and :class:`ChecksumError` names the shard.
- When the files pass ``limit_bytes``, the least recently used ones are deleted, never one that
  this process is reading. Use is recorded in the file's mtime, so DataLoader workers and several
  trainers can share one cache directory.
"""

from __future__ import annotations

import hashlib
import io
import logging
import mmap
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Dict, Optional, Union

from shardflow.errors import ChecksumError
from shardflow.format.entries import ShardEntry
from shardflow.reading.cachefiles import (Buffer, DownloadLock, PartFile, advise_large_pages, map_private,
                                          mark_verified, recently_verified, unlink)
from shardflow.storage.store import ObjectStore

log = logging.getLogger(__name__)

DEFAULT_LIMIT_BYTES = 20 << 30
"""20 GiB; ``None`` means no limit."""
DEFAULT_REVERIFY_AFTER = 60.0
_STALE_PART_SECONDS = 3600


def default_cache_dir() -> str:
    return os.environ.get("SHARDFLOW_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "shardflow",
                                                                 "shards")


@dataclass
class CacheStats:
    """Counts for this process (each DataLoader worker has its own)."""

    hits: int = 0
    downloads: int = 0
    bytes_downloaded: int = 0
    evictions: int = 0


class ShardCache:
    def __init__(self, directory: Union[str, os.PathLike, None] = None,
                 limit_bytes: Optional[int] = DEFAULT_LIMIT_BYTES, reverify_after: float = DEFAULT_REVERIFY_AFTER):
        if limit_bytes is not None and limit_bytes < 0:
            raise ValueError(f"cache limit must be >= 0 bytes or None, got {limit_bytes}")
        self.directory = os.path.abspath(os.fspath(directory)) if directory is not None else default_cache_dir()
        self.limit_bytes = limit_bytes
        self.reverify_after = reverify_after
        self.stats = CacheStats()
        self._pinned: Dict[str, int] = {}
        self._last_use_ns = 0
        self._parts = 0
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"directory": self.directory, "limit_bytes": self.limit_bytes, "reverify_after": self.reverify_after}

    def __setstate__(self, state):
        self.__init__(state["directory"], state["limit_bytes"], state["reverify_after"])

    def __repr__(self):
        return f"ShardCache({self.directory}, limit {self.limit_bytes} bytes)"

    def path_for(self, shard: ShardEntry) -> str:
        return os.path.join(self.directory, f"{shard.sha256}.h5")

    def read(self, shard: ShardEntry, store: ObjectStore) -> bytearray:
        """The shard's verified bytes, from the cache or downloaded (in one GET) into it."""
        cached = self.lookup(shard)
        if cached is not None:
            return cached
        buffer = io.BytesIO()
        store.download(shard.object_key, buffer)
        return self.admit(shard, bytearray(buffer.getbuffer()))

    def lookup(self, shard: ShardEntry) -> Optional[Buffer]:
        """The shard's verified bytes if the cache holds them, else None. A damaged file is deleted
        and raises :class:`ChecksumError`."""
        path = self.path_for(shard)
        with self._pin(path):
            try:
                data = map_private(path)
            except FileNotFoundError:
                return None
            self._touch(path)
            if not recently_verified(path, self.reverify_after):
                self._verify(shard, data, f"in the cache at {path}", path)
                mark_verified(path)
            with self._lock:
                self.stats.hits += 1
            return data

    def try_lock(self, shard: ShardEntry) -> Optional[DownloadLock]:
        """The right to download this shard into the cache now, or None while another reader of
        this directory is downloading it (it will be in the cache soon: look again)."""
        return DownloadLock.try_acquire(self.path_for(shard) + ".lock")

    def open_part(self, shard: ShardEntry) -> Optional[PartFile]:
        """A new file of the shard's size in the cache directory, mapped for a download to land in
        directly (no second copy to write the cache file); None if the disk cannot hold it, and the
        download then goes to memory."""
        if not hasattr(os, "posix_fallocate"):
            return None  # without it a full disk would surface as SIGBUS on a mapped write
        os.makedirs(self.directory, exist_ok=True)
        with self._lock:
            self._parts += 1
            path = f"{self.path_for(shard)}.part-{os.getpid()}-{self._parts}"
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError as e:
            log.warning("Cannot cache shard %s in %s: %s", shard.shard_id, self.directory, e)
            return None
        try:
            # Blocks allocated now: a full disk is an error here, not a SIGBUS on a mapped write.
            os.posix_fallocate(fd, 0, shard.bytes)
            return PartFile(path, advise_large_pages(mmap.mmap(fd, shard.bytes)))
        except (OSError, ValueError) as e:
            log.warning("Cannot cache shard %s in %s: %s", shard.shard_id, self.directory, e)
            unlink(path)
            return None
        finally:
            os.close(fd)

    def admit_part(self, shard: ShardEntry, part: PartFile) -> Buffer:
        """Verifies a download that landed in ``part`` and moves it into the cache; returns a private
        (copy-on-write) mapping of it, so changing a sample's arrays never changes the cached file."""
        with self._lock:
            self.stats.downloads += 1
            self.stats.bytes_downloaded += shard.bytes
        try:
            self._verify(shard, part.map, "after download", None)
            data = map_private(part.path)
        except BaseException:
            part.discard()
            raise
        part.close()
        path = self.path_for(shard)
        with self._pin(path):
            try:
                os.replace(part.path, path)
                mark_verified(path)
                self._touch(path)
            except OSError as e:
                log.warning("Cannot cache shard file %s: %s", path, e)
                unlink(part.path)
            self._evict()
        return data

    def admit(self, shard: ShardEntry, data: bytearray) -> bytearray:
        """Verifies freshly downloaded bytes against the log entry, then caches them; returns them."""
        self.check_download(shard, data)
        self.keep(shard, data)
        return data

    def check_download(self, shard: ShardEntry, data: bytearray) -> None:
        """Verifies freshly downloaded bytes against the log entry (:class:`ChecksumError` if not)."""
        with self._lock:
            self.stats.downloads += 1
            self.stats.bytes_downloaded += len(data)
        self._verify(shard, data, "after download", None)

    def keep(self, shard: ShardEntry, data: bytearray) -> None:
        """Writes verified bytes to the cache and evicts what no longer fits."""
        path = self.path_for(shard)
        with self._pin(path):
            self._store(path, data)
            self._evict()

    def _store(self, path: str, data: bytearray) -> None:
        os.makedirs(self.directory, exist_ok=True)
        part = f"{path}.part-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(part, "wb") as f:
                f.write(data)
            os.replace(part, path)
            mark_verified(path)
            self._touch(path)
        except OSError as e:
            # A full or read-only disk must not stop training: the bytes are verified and in memory.
            log.warning("Cannot cache shard file %s: %s", path, e)
            unlink(part)

    @staticmethod
    def _verify(shard: ShardEntry, data: Buffer, where: str, path: Optional[str]) -> None:
        actual = hashlib.sha256(data).hexdigest()
        if len(data) != shard.bytes or actual != shard.sha256:
            if path is not None:
                unlink(path)
            raise ChecksumError(shard.shard_id, shard.object_key, shard.sha256, actual, shard.bytes, len(data), where)

    def _touch(self, path: str) -> None:
        # An explicit, strictly increasing time: the kernel's own file times are coarse (a few ms),
        # which would make reads close together look simultaneous.
        with self._lock:
            self._last_use_ns = max(time.time_ns(), self._last_use_ns + 1)
            now = self._last_use_ns
        try:
            os.utime(path, ns=(now, now))
        except OSError:
            pass  # evicted by another process meanwhile: the bytes are already read

    @contextmanager
    def _pin(self, path: str):
        with self._lock:
            self._pinned[path] = self._pinned.get(path, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._pinned[path] -= 1
                if not self._pinned[path]:
                    del self._pinned[path]

    def size_bytes(self) -> int:
        return sum(size for _, size, _ in self._files())

    def _files(self):
        try:
            entries = list(os.scandir(self.directory))
        except FileNotFoundError:
            return []
        files = []
        now = time.time()
        for e in entries:
            try:
                st = e.stat()
            except FileNotFoundError:
                continue
            if e.name.endswith(".h5"):
                files.append((st.st_mtime_ns, st.st_size, e.path))
            elif ".h5.part-" in e.name and now - st.st_mtime > _STALE_PART_SECONDS:
                unlink(e.path)  # left by a process that died while writing
        return files

    def _evict(self) -> None:
        if self.limit_bytes is None:
            return
        files = self._files()
        total = sum(size for _, size, _ in files)
        if total <= self.limit_bytes:
            return
        with self._lock:
            pinned = set(self._pinned)
        for _, size, path in sorted(files):
            if total <= self.limit_bytes:
                break
            if path in pinned:
                continue
            if unlink(path):
                self.stats.evictions += 1
                log.debug("Evicted %s (%d bytes) from the shard cache", path, size)
            total -= size


class NoCache(ShardCache):
    """Verifies every download and keeps nothing on disk (``Dataset(..., cache_dir=False)``)."""

    def __init__(self):
        super().__init__(os.devnull, None)

    def __getstate__(self):
        return {}

    def __setstate__(self, state):
        self.__init__()

    def __repr__(self):
        return "NoCache()"

    def lookup(self, shard: ShardEntry) -> Optional[Buffer]:
        return None

    def open_part(self, shard: ShardEntry) -> Optional[PartFile]:
        return None

    def try_lock(self, shard: ShardEntry) -> Optional[DownloadLock]:
        return DownloadLock(None)  # nothing is shared, nothing to wait for

    def _store(self, path: str, data: bytearray) -> None:
        pass

    def size_bytes(self) -> int:
        return 0
