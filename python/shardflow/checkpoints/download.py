"""Getting a checkpoint file back: parallel ranged GETs written into their place in a local file,
then checked against the manifest's size and SHA-256 before anyone decodes it. Memory: one
``part_size`` buffer per GET in flight (``parallelism``), whatever the file's size."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

from shardflow.checkpoints.manifest import SavedFile
from shardflow.errors import ObjectNotFoundError, ShardflowError
from shardflow.storage.objectstore import ObjectStore

_HASH_SLICE = 4 << 20


def download_verified(store: ObjectStore, saved: SavedFile, path: str, part_size: int, parallelism: int) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.ftruncate(fd, saved.bytes)

        def fetch(start: int) -> None:
            buffer = bytearray(min(part_size, saved.bytes - start))
            size = store.read_into(saved.key, memoryview(buffer), start)
            if size != saved.bytes:
                raise _mismatch(saved, "while downloading", f"an object of {size} bytes", size)
            os.pwrite(fd, buffer, start)

        with ThreadPoolExecutor(max(1, parallelism), thread_name_prefix="ckpt-get") as pool:
            for done in [pool.submit(fetch, start) for start in range(0, saved.bytes, part_size)]:
                done.result()
        if saved.bytes == 0 and store.read_into(saved.key, memoryview(bytearray(0))) != 0:
            raise _mismatch(saved, "while downloading", "a non-empty object", -1)
    finally:
        os.close(fd)
    with open(path, "rb") as f:
        digest = sha256_of(f)
    if digest != saved.sha256:
        os.unlink(path)
        raise _mismatch(saved, "after download", digest, saved.bytes)
    return path


def sha256_of(stream: BinaryIO) -> str:
    h = hashlib.sha256()
    buffer = bytearray(_HASH_SLICE)
    view = memoryview(buffer)
    while True:
        n = stream.readinto(buffer)
        if not n:
            return h.hexdigest()
        h.update(view[:n])


class _HashingSink:
    def __init__(self):
        self.sha256 = hashlib.sha256()
        self.bytes = 0

    def write(self, data) -> int:
        self.sha256.update(data)
        self.bytes += len(data)
        return len(data)


def verify_stored(store: ObjectStore, saved: SavedFile) -> None:
    """Streams the stored object through SHA-256 (nothing kept) and compares it with the manifest."""
    sink = _HashingSink()
    try:
        store.download(saved.key, sink)
    except ObjectNotFoundError:
        raise ObjectNotFoundError(f"{saved.key} ({saved.name}) is named by the manifest but missing") from None
    digest = sink.sha256.hexdigest()
    if sink.bytes != saved.bytes or digest != saved.sha256:
        raise _mismatch(saved, "in the store", digest, sink.bytes)


class CheckpointCorruptError(ShardflowError):
    """A checkpoint file does not have the size and SHA-256 its manifest records."""


def _mismatch(saved: SavedFile, where: str, actual_sha256: str, actual_bytes: int) -> CheckpointCorruptError:
    return CheckpointCorruptError(
        f"checkpoint file {saved.name!r} ({saved.key}) failed verification {where}: the manifest says "
        f"{saved.bytes} bytes with sha256 {saved.sha256}, found {actual_bytes} bytes with sha256 {actual_sha256}")
