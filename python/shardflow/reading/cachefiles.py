"""The files of the shard cache: a download landing in a mapped file, and mapping a cached one."""

from __future__ import annotations

import mmap
import os
from typing import Union

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
