"""The files of the shard cache: a download landing in a mapped file, and mapping a cached one."""

from __future__ import annotations

import fcntl
import mmap
import os
import time
from typing import Optional, Union

Buffer = Union[bytearray, mmap.mmap]
"""Shard bytes as the reader gets them: writable, so numpy views of them are too."""


class PartFile:
    """A cache file being downloaded into, through a shared writable mapping."""

    def __init__(self, path: str, mapping: mmap.mmap):
        self.path = path
        self.map = mapping

    def close(self) -> None:
        try:
            self.map.close()
        except BufferError:
            pass  # a view of it is still alive (an error's traceback): unmapped once it goes

    def discard(self) -> None:
        self.close()
        unlink(self.path)


def advise_large_pages(mapping: mmap.mmap) -> mmap.mmap:
    """Asks the kernel to back a download's mapping with large page-cache folios where the file
    system has them (ext4, XFS on Linux 6.x). A download into a new file otherwise takes one page
    fault per 4 KiB: measured 1.3 CPU-s per GB of shard against 0.55 with the advice, the same as
    downloading into memory (``python -m shardflow.tools.bench_profile``). Only a hint: a kernel
    or file system without it ignores or refuses it, and nothing changes but the cost."""
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None:
        try:
            mapping.madvise(advice)
        except (OSError, ValueError):
            pass
    return mapping


def map_private(path: str) -> Buffer:
    """The file's bytes as a private, writable mapping: read from the page cache without a copy,
    and a write to it (a trainer changing a sample in place) never reaches the file."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size == 0:
            return bytearray()  # mmap refuses empty files; the checks then report the size
        return mmap.mmap(f.fileno(), size, access=mmap.ACCESS_COPY)


def unlink(path: str) -> bool:
    try:
        os.unlink(path)
        return True
    except FileNotFoundError:
        return False


class DownloadLock:
    """An exclusive ``flock`` on ``<shard file>.lock``: the one process of a machine that downloads
    a shard into a shared cache while the others wait for the file. The kernel drops it when its
    holder dies, so a killed reader never leaves a shard locked (only an empty file, which the next
    holder removes)."""

    def __init__(self, fd: Optional[int], path: Optional[str] = None):
        self._fd: Optional[int] = fd
        self._path = path

    @staticmethod
    def try_acquire(path: str) -> Optional["DownloadLock"]:
        """The lock, or None while another process (or reader) holds it."""
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return DownloadLock(fd, path)

    def release(self) -> None:
        """Removes the lock file, then unlocks: whoever looks after this finds the shard cached
        (the holder releases only after the file is in place or the download failed)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            unlink(self._path)
            os.close(fd)  # closing the descriptor releases the flock


VERIFIED_ATTR = "user.shardflow.verified"
"""Extended attribute of a cache file: ``<inode>:<size>:<time_ns>`` of its last SHA-256 check."""


def mark_verified(path: str) -> None:
    """Records that the file's bytes were just checked against the log; a file system without user
    extended attributes records nothing (every reader then checks every file it opens)."""
    try:
        st = os.stat(path)
        os.setxattr(path, VERIFIED_ATTR, f"{st.st_ino}:{st.st_size}:{time.time_ns()}".encode())
    except OSError:
        pass


def recently_verified(path: str, within_s: float) -> bool:
    """Whether some reader of this cache checked this very file (same inode and size) less than
    ``within_s`` seconds ago."""
    if within_s <= 0:
        return False
    try:
        inode, size, at = os.getxattr(path, VERIFIED_ATTR).decode().split(":")
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return int(inode) == st.st_ino and int(size) == st.st_size and time.time_ns() - int(at) < within_s * 1e9
