"""Getting a checkpoint file back: parallel ranged GETs written into their place in a local file,
checked against the manifest's size and SHA-256 before anyone decodes it. The hash is taken from
the parts' buffers in file order as they come (a part that arrives early waits, holding its buffer,
until the parts before it are hashed), so the file is never read back. Memory: one ``part_size``
buffer per GET in flight (``parallelism``), whatever the file's size."""

from __future__ import annotations

import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from shardflow.checkpoints.manifest import SavedFile
from shardflow.errors import ObjectNotFoundError, ShardflowError
from shardflow.storage.objectstore import ObjectStore


def download_verified(store: ObjectStore, saved: SavedFile, path: str, part_size: int, parallelism: int) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    ordered = InOrderHash()
    try:
        os.ftruncate(fd, saved.bytes)

        def fetch(start: int) -> None:
            buffer = bytearray(min(part_size, saved.bytes - start))
            try:
                size = store.read_into(saved.key, memoryview(buffer), start)
                if size != saved.bytes:
                    raise mismatch(saved, "while downloading", f"an object of {size} bytes", size)
                os.pwrite(fd, buffer, start)
            except BaseException:
                ordered.fail()
                raise
            ordered.add(start, buffer)

        # The pool takes parts in submission (file) order, so the part the hash waits for is always
        # running or done: a part that waits never blocks the one before it.
        with ThreadPoolExecutor(max(1, parallelism), thread_name_prefix="ckpt-get") as pool:
            for done in [pool.submit(fetch, start) for start in range(0, saved.bytes, part_size)]:
                done.result()
        if saved.bytes == 0 and store.read_into(saved.key, memoryview(bytearray(0))) != 0:
            raise mismatch(saved, "while downloading", "a non-empty object", -1)
    finally:
        os.close(fd)
    digest = ordered.sha256.hexdigest()
    if digest != saved.sha256:
        os.unlink(path)
        raise mismatch(saved, "after download", digest, saved.bytes)
    return path


class InOrderHash:
    """SHA-256 over parts that arrive in any order, fed in file order."""

    def __init__(self):
        self.sha256 = hashlib.sha256()
        self._next = 0
        self._failed = False
        self._turn = threading.Condition()

    def add(self, start: int, buffer) -> None:
        with self._turn:
            self._turn.wait_for(lambda: self._next == start or self._failed)
            if self._failed:
                return
        self.sha256.update(buffer)  # alone: every other part waits for its turn
        with self._turn:
            self._next = start + len(buffer)
            self._turn.notify_all()

    def fail(self) -> None:
        with self._turn:
            self._failed = True
            self._turn.notify_all()




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
        raise mismatch(saved, "in the store", digest, sink.bytes)


class CheckpointCorruptError(ShardflowError):
    """A checkpoint file does not have the size and SHA-256 its manifest records."""


def mismatch(saved: SavedFile, where: str, actual_sha256: str, actual_bytes: int) -> CheckpointCorruptError:
    return CheckpointCorruptError(
        f"checkpoint file {saved.name!r} ({saved.key}) failed verification {where}: the manifest says "
        f"{saved.bytes} bytes with sha256 {saved.sha256}, found {actual_bytes} bytes with sha256 {actual_sha256}")
