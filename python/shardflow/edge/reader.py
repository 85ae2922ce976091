"""Reads the queue's durable entries in seq order for the sender, one segment file at a time.

It holds one open file and one entry in memory, whatever the backlog. Each entry's CRC is checked
as it is read; an entry that fails in a synced segment (bit rot, not a torn tail) is counted as
corrupt and skipped with the rest of its segment, so a bad spot never stalls the queue. A segment
deleted under it (dropped by policy) just moves it on to the next one.
"""

from __future__ import annotations

import os
from typing import BinaryIO, Optional

from shardflow.edge import segment as seg
from shardflow.edge.queue import DurableQueue
from shardflow.edge.recovery import SegmentInfo
from shardflow.edge.segment import Frame


class QueueReader:

    def __init__(self, queue: DurableQueue, start_seq: int):
        self._queue = queue
        self._seq = start_seq  # the next seq to return
        self._file: Optional[BinaryIO] = None
        self._segment: Optional[SegmentInfo] = None
        self._offset = 0

    @property
    def next_seq(self) -> int:
        return self._seq

    def next(self, timeout: float) -> Optional[Frame]:
        """The entry with the next seq once it is durable, or None after ``timeout`` seconds without one."""
        self._seq = max(self._seq, self._queue.done_seq() + 1)  # past anything dropped meanwhile
        if self._queue.durable_seq() < self._seq:
            if self._queue.wait_durable_after(self._seq - 1, timeout) < self._seq:
                return None
        while True:
            if self._queue.durable_seq() < self._seq:
                return None
            if self._segment is None or not (self._segment.first_seq <= self._seq < self._segment_end()):
                if not self._open_segment_of(self._seq):
                    return None
                continue
            frame = seg.read_frame(self._file, self._offset, self._seq)
            if frame is not None:
                self._offset += frame.size
                self._seq += 1
                return frame
            self._lose_rest_of_segment()

    def _lose_rest_of_segment(self) -> None:
        """A durable entry that does not read back: count it and the rest of its segment as corrupt
        and go on with the next segment (sealing this one first if appends still go to it)."""
        if self._is_active():
            self._queue.seal_active(self._segment.first_seq)
        end = self._segment_end()
        self._queue.skip_corrupt(self._seq, end)
        self._seq = end
        self._close()

    def _segment_end(self) -> int:
        """One past the last seq of the current segment: the next segment's first, or the durable end."""
        later = [s.first_seq for s in self._queue.segments() if s.first_seq > self._segment.first_seq]
        return min(later) if later else self._queue.durable_seq() + 1

    def _is_active(self) -> bool:
        return all(s.first_seq <= self._segment.first_seq for s in self._queue.segments())

    def _open_segment_of(self, seq: int) -> bool:
        self._close()
        candidates = [s for s in self._queue.segments() if s.first_seq <= seq]
        if not candidates:
            return False
        info = candidates[-1]
        try:
            f = open(info.path, "rb")
        except FileNotFoundError:
            return False  # deleted under us (dropped); the caller's next try starts past it
        self._file, self._segment = f, info
        self._offset, found = seg.skip_headers(f, info.first_seq, seq, os.fstat(f.fileno()).st_size)
        f.seek(self._offset)
        if found != seq:
            self._lose_rest_of_segment()  # an unreadable header before seq: seq cannot be located
        return True

    def _close(self) -> None:
        if self._file is not None:
            self._file.close()
        self._file, self._segment = None, None

    def close(self) -> None:
        self._close()
