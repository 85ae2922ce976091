"""The queue's done-cursor and identity files (docs/EDGE-QUEUE.md).

``cursor`` holds two 32-byte slots written in turn: generation u64, done seq i64, CRC-32 of both
(big-endian), zero padding. Every entry with seq <= done seq has been acknowledged by the broker or
dropped by policy. The slot with the highest generation and a good CRC wins, so a write torn by a
crash leaves the other slot, one step older: older only means a few acknowledged entries are sent
again, which ingest-app drops as duplicates. It is synced before any segment is deleted, so the
done seq never falls behind a deleted segment (the next seq must never repeat one already used).

``attempted`` has the same two slots and holds the highest seq the sender may ever have handed to
the Kafka client: it is synced before any seq above it is produced, so after a restart the entries
above ``cursor``'s done seq and at or below it may have reached the broker already, and the others
surely did not (docs/EDGE-QUEUE.md, Resend horizon).

``queue.id`` names this queue's sequence space (32 hex digits, written once): ingest-app keeps the
highest seq it has seen per (dataset, version, device, queue id) and drops anything at or below it.
"""

from __future__ import annotations

import os
import struct
import uuid
from typing import Optional

from shardflow.edge.crc import crc32
from shardflow.edge.errors import QueueFormatError
from shardflow.edge.segment import fsync_dir

_SLOT = struct.Struct(">QqI")
SLOT_BYTES = 32
CURSOR_FILE = "cursor"
ATTEMPTED_FILE = "attempted"
ID_FILE = "queue.id"


class Cursor:
    """The done seq, written in place without a sync; ``sync()`` makes the last write durable."""

    def __init__(self, directory: str, name: str = CURSOR_FILE):
        self._path = os.path.join(directory, name)
        self.existed = os.path.exists(self._path)
        self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        if os.fstat(self._fd).st_size < 2 * SLOT_BYTES:
            # both slots allocated now: later writes overwrite in place and never need space (disk full)
            os.pwrite(self._fd, bytes(2 * SLOT_BYTES - os.fstat(self._fd).st_size), os.fstat(self._fd).st_size)
            os.fsync(self._fd)
        self.generation, self.done = self._read()
        self._dirty = False

    def _read(self):
        raw = os.pread(self._fd, 2 * SLOT_BYTES, 0)
        best = (0, 0)
        for i in range(2):
            slot = raw[i * SLOT_BYTES:(i + 1) * SLOT_BYTES]
            if len(slot) < _SLOT.size:
                continue
            generation, done, crc = _SLOT.unpack_from(slot)
            if generation > best[0] and crc32(slot[:16]) == crc:
                best = (generation, done)
        return best

    def advance(self, done: int) -> None:
        if done <= self.done:
            return
        self.generation += 1
        self.done = done
        body = struct.pack(">Qq", self.generation, done)
        slot = (body + struct.pack(">I", crc32(body))).ljust(SLOT_BYTES, b"\0")
        os.pwrite(self._fd, slot, (self.generation % 2) * SLOT_BYTES)
        self._dirty = True

    def sync(self, force: bool = False) -> None:
        """``force``: also when this process wrote nothing (the value read at open may sit only in
        the page cache of a process that crashed; it must be durable before segments are deleted)."""
        if self._dirty or force:
            os.fsync(self._fd)
            self._dirty = False

    def close(self) -> None:
        try:
            self.sync()
        finally:
            os.close(self._fd)


def load_or_create_id(directory: str) -> str:
    path = os.path.join(directory, ID_FILE)
    existing = _read_id(path)
    if existing is not None:
        return existing
    queue_id = uuid.uuid4().hex
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="ascii") as f:
        f.write(queue_id + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(directory)
    return queue_id


def _read_id(path: str) -> Optional[str]:
    try:
        with open(path, "r", encoding="ascii") as f:
            text = f.read().strip()
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        text = "?"
    if len(text) != 32 or any(c not in "0123456789abcdef" for c in text):
        raise QueueFormatError(f"{path} does not hold a queue id (32 hex digits); refusing to guess one: the queue's "
                               "sequence space would change and ingest-app could drop new entries as old ones")
    return text
