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
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from shardflow.edge import segment as seg
from shardflow.edge.bound import BoundPolicies
from shardflow.edge.commit import DURABILITIES, GroupCommit
from shardflow.edge.cursor import Cursor, load_or_create_id
from shardflow.edge.errors import QueueLocked, QueueWriteError
from shardflow.edge.recovery import SegmentInfo, create_segment, recover

LOG = logging.getLogger(__name__)
POLICIES = ("block", "drop_oldest", "reject")
#: ``process`` mode's default longest wait between a write and its sync (the power-cut window)
PROCESS_FSYNC_INTERVAL = 1.0


def _fdatasync(fd: int) -> None:
    os.fdatasync(fd)  # looked up at each call, so a test can patch os.fdatasync under an open queue


@dataclass(frozen=True)
class QueueSettings:
    max_bytes: int = 1 << 30
    policy: str = "block"
    segment_bytes: Optional[int] = None  # default: max_bytes / 8, between 1 and 64 MiB
    #: ``fsync``: seconds a sync waits to gather more appends (default 0: at once); ``process``: the
    #: longest a written entry waits for its sync (default 1 s): what a power cut can lose
    fsync_interval: Optional[float] = None
    block_timeout: float = 30.0
    #: ``fsync``: ``send`` returns once the sample is synced (survives a power cut); ``process``:
    #: once written to the OS (survives kill -9; a power cut loses up to ``fsync_interval`` seconds)
    durability: str = "fsync"

    def checked(self) -> "QueueSettings":
        if self.policy not in POLICIES:
            raise ValueError(f"queue policy {self.policy!r} is not one of {POLICIES}")
        if self.durability not in DURABILITIES:
            raise ValueError(f"queue durability {self.durability!r} is not one of {DURABILITIES}")
        if self.max_bytes < 4 * seg.HEADER_BYTES + 4096:
            raise ValueError(f"queue max_bytes {self.max_bytes} is too small")
        size = self.segment_bytes or min(64 << 20, max(1 << 20, self.max_bytes // 8))
        if size * 4 > self.max_bytes:
            size = self.max_bytes // 4  # at least four segments fit, so one can drain while another fills
        interval = self.fsync_interval
        if interval is None:
            interval = PROCESS_FSYNC_INTERVAL if self.durability == "process" else 0.0
        if interval < 0 or self.block_timeout < 0:
            raise ValueError("fsync_interval and block_timeout must not be negative")
        return QueueSettings(self.max_bytes, self.policy, size, interval, self.block_timeout, self.durability)


class DurableQueue(BoundPolicies, GroupCommit):

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
        self.queue_id = load_or_create_id(directory)
        self._cursor = Cursor(directory)
        self._cursor.sync(force=True)
        found = recover(directory, self._cursor.done)
        self.cut_bytes = found.cut_bytes
        self._segments: List[SegmentInfo] = found.segments
        self._next_seq = found.next_seq
        self._durable = found.next_seq - 1
        active = self._segments[-1]
        self._fd = os.open(active.path, os.O_WRONLY)
        try:
            # What a killed process wrote may still sit only in the page cache (process mode, or a
            # group commit cut short): synced before the sender may send any of it.
            sync_file(self._fd)
        except OSError:
            os.close(self._fd)
            os.close(self._lock_fd)
            raise
        self._durable_size = active.size
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

    # ---- appending ------------------------------------------------------------------------------

    def append(self, key: bytes, value: bytes) -> int:
        return self.append_many([(key, value)])[0]

    def append_many(self, entries: Sequence[Tuple[bytes, bytes]]) -> List[int]:
        """Writes the entries and returns their seqs once they are durable as ``durability`` says."""
        seqs, epoch = self._write(entries, None)
        if self.durability == "fsync":
            self._sync_through(seqs[-1], epoch)
        return seqs

    def append_many_async(self, entries: Sequence[Tuple[bytes, bytes]]) -> Tuple[List[int], Future]:
        """Writes the entries and returns their seqs at once, with a future that resolves (to the
        last seq) once they are synced, or fails with QueueWriteError if the sync failed and they
        were cut."""
        future: Future = Future()
        seqs, _ = self._write(entries, future)
        return seqs, future

    def _write(self, entries: Sequence[Tuple[bytes, bytes]], future: Optional[Future]) -> Tuple[List[int], int]:
        now_ms = int(self._clock() * 1000)
        payloads = [seg.encode_payload(k, v) for k, v in entries]
        need = sum(seg.FRAME_HEADER_BYTES + len(p) for p in payloads)
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
                    for payload in payloads:
                        header = seg.frame_header(self._next_seq, now_ms, payload)
                        written = os.pwritev(self._fd, [header, payload], active.size)
                        if written != len(header) + len(payload):
                            raise OSError(28, f"short write: {written} of {len(header) + len(payload)} bytes")
                        active.size += written
                        seqs.append(self._next_seq)
                        self._next_seq += 1
                        active.end_seq = self._next_seq
                except OSError as e:
                    self._undo(active, start_size, start_seq)
                    raise QueueWriteError(e.errno or 5, f"edge queue {self.directory}: cannot write {need} bytes "
                                                        f"({e.strerror or e}); nothing was queued") from e
                self._written(seqs[-1], future)
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

    # ---- what the sender uses -------------------------------------------------------------------

    def ack(self, seq: int) -> None:
        """The broker acknowledged ``seq``; the done cursor moves over every contiguous acknowledged seq."""
        self.ack_many((seq,))

    def ack_many(self, seqs) -> None:
        """``ack`` for several seqs at once: one lock and one cursor write for all of them."""
        with self._cond:
            if self._closed:
                return
            done = self._cursor.done
            self._acked_above.update(s for s in seqs if s > done)
            self._move_done()

    def skip_corrupt(self, from_seq: int, to_seq: int) -> None:
        """The reader found entries it cannot read (a bad CRC in a synced segment): counted as lost."""
        with self._cond:
            lost = range(max(from_seq, self._cursor.done + 1), to_seq)
            self.corrupt += len(lost)
            LOG.error("edge queue %s: entries %d..%d are corrupt on disk and cannot be sent", self.directory,
                      from_seq, to_seq - 1)
            self._acked_above.update(lost)
            self._move_done()

    def _move_done(self) -> None:
        done = self._cursor.done
        while done + 1 in self._acked_above:
            done += 1
        if done > self._cursor.done:
            self._advance(done)
            if len(self._segments) > 1 and self._segments[0].end_seq - 1 <= done:
                self._reclaim()
            self._cond.notify_all()

    def _advance(self, done: int) -> None:
        self._cursor.advance(done)
        self._acked_above = {s for s in self._acked_above if s > done}

    def seal_active(self, first_seq: int) -> None:
        """Rolls the active segment if it still is the one starting at ``first_seq``."""
        with self._cond:
            if self._segments[-1].first_seq == first_seq:
                self._roll()

    def done_seq(self) -> int:
        with self._cond:
            return self._cursor.done

    def durable_seq(self) -> int:
        with self._cond:
            return self._durable

    def segments(self) -> List[SegmentInfo]:
        with self._cond:
            return [SegmentInfo(s.first_seq, s.path, s.size, s.end_seq) for s in self._segments]

    def wait_durable_after(self, seq: int, timeout: float) -> int:
        """Waits until an entry after ``seq`` is durable (or the timeout); returns the durable seq.
        Entries only written (``process`` mode) are synced now rather than at ``fsync_interval``:
        a sender with nothing to send is online and waiting, so delivery does not wait for the
        interval (it stays the longest any written entry waits for its sync)."""
        with self._cond:
            if self._durable <= seq and not self._closed:
                if self._next_seq - 1 > self._durable and not (self._sync_wanted or self._syncing):
                    self._sync_wanted = True
                    self._cond.notify_all()
                if timeout > 0:
                    self._cond.wait(timeout)
            return self._durable

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
            os.close(self._lock_fd)
