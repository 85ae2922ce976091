"""What the reader needs from a bucket: the :class:`ObjectStore` interface every store implements.

A store only needs ``get``, ``list_keys`` (sorted, for the commit log only: readers never list
``shards/``), ``download``, ``read_into`` and, for tests and tools that write, ``put_if_absent``.
Training checkpoints (:mod:`shardflow.checkpoints`) also write large objects create-only through
``create_writer``, list the steps of a run with ``list_prefixes`` and delete what their garbage
collection drops with ``delete``.
"""

from __future__ import annotations

import io
from typing import BinaryIO, Iterator, Optional

CHUNK = 1 << 20
RANGE_READ_CHUNK = 8 << 20


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

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create-only write (``If-None-Match: *``): False when the key already exists."""
        raise NotImplementedError

    def create_writer(self, key: str, part_size: int, parallelism: int) -> "CreateOnlyWriter":
        """A stream that creates ``key`` from what is written to it, create-only, when it is
        committed; nothing appears under ``key`` before that. Memory: at most ``part_size`` bytes
        times ``parallelism`` + 1 are held, whatever the object's size."""
        raise NotImplementedError

    def list_prefixes(self, prefix: str, start_after: Optional[str] = None) -> Iterator[str]:
        """The "folders" right under ``prefix`` (keys cut after the next ``/``, that ``/`` included),
        sorted, those after ``start_after`` only."""
        raise NotImplementedError

    def delete(self, key: str) -> None:
        """Deletes ``key``; no error when it does not exist. Garbage collection only."""
        raise NotImplementedError


class ObjectExistsError(Exception):
    """A create-only write found the key already there (HTTP 412)."""

    def __init__(self, key: str):
        self.key = key
        super().__init__(f"{key} already exists (create-only write refused)")


class CreateOnlyWriter:
    """What :meth:`ObjectStore.create_writer` returns: ``write`` the bytes, then ``commit`` (the
    object appears, or :class:`ObjectExistsError`) or ``abort`` (nothing appears). A ``with`` block
    aborts on an exception and commits otherwise."""

    def write(self, data) -> int:
        raise NotImplementedError

    def commit(self) -> int:
        """Makes the object appear; returns its size."""
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        if kind is None:
            self.commit()
        else:
            self.abort()
        return False
