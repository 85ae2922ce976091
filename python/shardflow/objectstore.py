"""What the reader needs from a bucket: the :class:`ObjectStore` interface every store implements.

A store only needs ``get``, ``list_keys`` (sorted, for the commit log only: readers never list
``shards/``), ``download``, ``read_into`` and, for tests and tools that write, ``put_if_absent``.
"""

from __future__ import annotations

import io
import os
from typing import Any, BinaryIO, Iterator, Optional

CHUNK = 1 << 20
RANGE_READ_CHUNK = 8 << 20
FILE_CHUNK = 1 << 20
"""Bytes per piece on the way from a GET into a file: small enough to stay in the CPU's cache while
they are hashed and written."""


class ObjectStore:
    """What the reader needs from a bucket. Keys are ``/``-separated, relative to the bucket root."""

    def get(self, key: str) -> Optional[bytes]:
        """The object's bytes, or None if there is no such object."""
        raise NotImplementedError

    def list_keys(self, prefix: str, start_after: Optional[str] = None, limit: Optional[int] = None) -> Iterator[str]:
        """Keys under ``prefix`` that sort after ``start_after``, in lexical order, at most ``limit``."""
        raise NotImplementedError

    def download(self, key: str, out: BinaryIO) -> int:
        """Streams the object into ``out``; returns the byte count. Raises ObjectNotFoundError."""
        raise NotImplementedError

    def read_into(self, key: str, out: memoryview, start: int = 0) -> int:
        """Reads the object's bytes ``start .. start + len(out)`` into ``out`` and returns the object's
        whole size, so a caller expecting a size learns of an object that has another (and then fewer
        bytes than ``len(out)`` may have been written). Raises ObjectNotFoundError.

        This fallback downloads the whole object; stores that can read a range override it."""
        buffer = io.BytesIO()
        size = self.download(key, buffer)
        data = buffer.getbuffer()
        n = max(0, min(len(out), size - start))
        out[:n] = data[start:start + n]
        return size

    def read_into_file(self, key: str, fd: int, start: int, length: int, digest: Optional[Any] = None) -> int:
        """Reads the object's bytes ``start .. start + length`` into the file ``fd`` at the same
        offset, passing them in order to ``digest.update`` too (a hashlib object, or None); returns the
        object's whole size, as :meth:`read_into` does. Raises ObjectNotFoundError.

        Written with ``pwrite``, not through a mapping: a write fault per page of a mapped file costs
        more than the copy. This fallback reads ranges of :data:`FILE_CHUNK` bytes with :meth:`read_into`."""
        buffer = memoryview(bytearray(min(length, FILE_CHUNK)))
        size = start + length
        done = 0
        while done < length:
            piece = buffer[:min(len(buffer), length - done)]
            size = self.read_into(key, piece, start + done)
            got = max(0, min(len(piece), size - start - done))
            write_at(fd, piece[:got], start + done, digest)
            done += len(piece)
            if got < len(piece):
                break
        return size

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create-only write (``If-None-Match: *``): False when the key already exists."""
        raise NotImplementedError


def write_at(fd: int, data: memoryview, offset: int, digest: Optional[Any] = None) -> None:
    """Writes all of ``data`` at ``offset`` of ``fd`` (and into ``digest``, when one is given)."""
    if digest is not None:
        digest.update(data)
    while len(data):
        n = os.pwrite(fd, data, offset)
        data = data[n:]
        offset += n
