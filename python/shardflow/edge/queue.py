"""The durable offline queue: a log of checksummed segments on local disk (docs/EDGE-QUEUE.md).

``append`` returns once its entries are durable as the queue's ``durability`` says (``commit.py``:
synced, shared by every caller waiting at the same moment, or written to the OS and synced in the
background). The sender reads synced entries in seq order and marks them done only once the
broker acknowledged them; whole segments are deleted once every entry in them is done. The queue is
bounded by the bytes of its segment files, with a policy for a full queue: ``block`` (wait for the
sender, up to ``block_timeout``), ``drop_oldest`` (drop the oldest segment's entries, counted) or
``reject`` (raise ``QueueFull``). A failed write or sync (disk full) raises ``QueueWriteError`` and
leaves the files as they were before the call.
"""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from concurrent.futures import Future
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from shardflow.edge import segment as seg
from shardflow.edge.bound import BoundPolicies
from shardflow.edge.commit import GroupCommit
from shardflow.edge.delivery import DeliveryState
from shardflow.edge.cursor import ATTEMPTED_FILE, Cursor, load_or_create_id
from shardflow.edge.errors import QueueLocked, QueueWriteError
from shardflow.edge.recovery import SegmentInfo, create_segment, recover
from shardflow.edge.settings import ATTEMPT_STRIDE, POLICIES, QueueSettings  # noqa: F401 - the public names

LOG = logging.getLogger(__name__)
def _fdatasync(fd: int) -> None:
    os.fdatasync(fd)  # looked up at each call, so a test can patch os.fdatasync under an open queue


class DurableQueue(BoundPolicies, GroupCommit, DeliveryState):

    def __init__(self, directory: str, settings: QueueSettings = QueueSettings(),
                 clock: Callable[[], float] = time.time, sync_file: Optional[Callable[[int], None]] = None):
        """``sync_file``: how a segment's data is made durable (default ``os.fdatasync``; tests inject failures)."""
        sync_file = sync_file or _fdatasync
        self.directory = directory
        self.settings = settings.checked()
        self._clock = clock
        os.makedirs(directory, exist_ok=True)
        self._lock_fd = os.open(os.path.join(directory, "lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise QueueLocked(f"edge queue {directory} is open in another process") from None
        opened: List[object] = []  # closed again if opening fails: the next try must find the lock free
        try:
            self._open(directory, sync_file, opened)
        except BaseException:
            for close in reversed(opened):
                try:
                    close()
                except OSError:
                    pass
            os.close(self._lock_fd)
            raise
        # Done segment files kept for reuse: overwriting allocated blocks syncs faster than growing a
        # file (no size or extent change to journal), as a database's recycled log files do.
        self._spares: List[str] = sorted(os.path.join(directory, n) for n in os.listdir(directory) if n.startswith("spare-"))
        self._spare_sizes: Dict[str, int] = {}
        self._cond = threading.Condition()
        self._acked_above: set = set()
        self.dropped = 0
        self.corrupt = 0
        self._closed = False
        self._start_syncing(sync_file)

    def _open(self, directory: str, sync_file: Callable[[int], None], opened: List[object]) -> None:
        self.queue_id = load_or_create_id(directory)
        self._cursor = Cursor(directory)
        opened.append(self._cursor.close)
        self._cursor.sync(force=True)
        found = recover(directory, self._cursor.done)
        self.cut_bytes = found.cut_bytes
        self._segments: List[SegmentInfo] = found.segments
        self._next_seq = found.next_seq
        self._durable = found.next_seq - 1
        active = self._segments[-1]
        self._fd = os.open(active.path, os.O_WRONLY)
        opened.append(lambda: os.close(self._fd))
        # What a killed process wrote may still sit only in the page cache (process mode, or a
        # group commit cut short): synced before the sender may send any of it.
        sync_file(self._fd)
        self._durable_size = active.size
        self._attempted = Cursor(directory, ATTEMPTED_FILE)
        opened.append(self._attempted.close)
        if not self._attempted.existed and self._next_seq > 1:
            # a queue written before this file existed: anything in it may have been sent
            self._attempted.advance(self._next_seq - 1)
            self._attempted.sync()

    # ---- appending ------------------------------------------------------------------------------

    def append(self, key: bytes, value: bytes) -> int:
        return self.append_many([(key, value)])[0]

    def append_many(self, entries: Sequence[Tuple[bytes, bytes]]) -> List[int]:
        """Writes the entries and returns their seqs once they are durable as ``durability`` says."""
        seqs, epoch = self._write(entries, None)
        if self.durability == "fsync":
            self._sync_through(seqs[-1], epoch)
        return seqs

    def append_many_async(self, entries: Sequence[Tuple[bytes, bytes]], result: Any = None) -> Tuple[List[int], Future]:
        """Writes the entries and returns their seqs at once, with a future that resolves (to
        ``result``, default the last seq) once they are synced, or fails with QueueWriteError if the
        sync failed and they were cut."""
        future: Future = Future()
        seqs, _ = self._write(entries, future, result)
        return seqs, future

    def _write(self, entries: Sequence[Tuple[bytes, bytes]], future: Optional[Future],
               result: Any = None) -> Tuple[List[int], int]:
        now_ms = int(self._clock() * 1000)
        need = sum(seg.FRAME_HEADER_BYTES + 2 + len(k) + len(v) for k, v in entries)
        try:
            with self._cond:
                self._check_open()
                self._raise_sync_failure()
                try:
                    self._make_room(need)
                    active = self._segments[-1]
                    if active.end_seq > active.first_seq and active.size + need > self.settings.segment_bytes:
                        self._roll()
                        active = self._segments[-1]
                except QueueWriteError:
                    raise
                except OSError as e:
                    raise QueueWriteError(e.errno or 5, f"edge queue {self.directory}: cannot start a segment "
                                                        f"({e.strerror or e}); nothing was queued") from e
                start_size, start_seq = active.size, self._next_seq
                seqs = []
                try:
                    for key, value in entries:
                        parts = seg.frame_parts(self._next_seq, now_ms, key, value)
                        size = sum(len(p) for p in parts)
                        written = os.pwritev(self._fd, parts, active.size)
                        if written != size:
                            raise OSError(28, f"short write: {written} of {size} bytes")
                        active.size += written
                        seqs.append(self._next_seq)
                        self._next_seq += 1
                        active.end_seq = self._next_seq
                except OSError as e:
                    self._undo(active, start_size, start_seq)
                    raise QueueWriteError(e.errno or 5, f"edge queue {self.directory}: cannot write {need} bytes "
                                                        f"({e.strerror or e}); nothing was queued") from e
                self._written(seqs[-1], future, result)
                return seqs, self._epoch
        finally:
            self._settle_ready()  # futures a roll's sync resolved, or a failed sync failed

    def _undo(self, active: SegmentInfo, size: int, next_seq: int) -> None:
        os.ftruncate(self._fd, size)
        active.size, active.end_seq, self._next_seq = size, next_seq, next_seq

    def _roll(self) -> None:
        """Seals the active segment (cut to its entries and synced: only the newest can have a torn
        tail) and starts the next, in a spare file when there is one."""
        while self._syncing:
            self._cond.wait()
        active, upto = self._segments[-1], self._next_seq - 1
        try:
            os.ftruncate(self._fd, active.size)  # a reused file's old frames beyond the last entry
            self._sync_file(self._fd)
        except OSError as e:
            raise self._sync_failed(e) from e
        self._mark_durable(upto, active.size)
        spare = self._spares.pop() if self._spares else None
        self._spare_sizes.pop(spare, None)
        created = create_segment(self.directory, self._next_seq, reuse=spare)  # on failure the old one stays active
        os.close(self._fd)
        self._segments.append(created)
        self._fd = os.open(created.path, os.O_WRONLY)
        self._durable_size = created.size

    def pending(self) -> int:
        """Entries queued (synced or, in ``process`` mode, only written) and not yet done."""
        with self._cond:
            return self._next_seq - 1 - self._cursor.done

    def notify(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _check_open(self) -> None:
        if self._closed:
            from shardflow.edge.errors import ProducerClosed
            raise ProducerClosed(f"edge queue {self.directory} is closed")

    def close(self) -> None:
        """Syncs what is only written (``process`` mode), then releases the files."""
        with self._cond:
            if self._closed:
                return
            try:
                self._sync_now()
            except QueueWriteError as e:
                LOG.error("edge queue %s: the last sync at close failed: %s", self.directory, e)
            self._closed = True
            self._cond.notify_all()
        self._stop_syncing()
        with self._cond:
            os.close(self._fd)
            self._cursor.close()
            self._attempted.close()
            os.close(self._lock_fd)
