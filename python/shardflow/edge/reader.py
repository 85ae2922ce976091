"""Reads the queue's durable entries in seq order for the sender, one segment file at a time.

It holds one open file and a read-ahead buffer (``READ_AHEAD`` bytes, or one entry if larger) in
memory, whatever the backlog. Each entry's CRC is checked
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

#: bytes read from a segment at once: a syscall per stretch of entries, not two per entry
READ_AHEAD = 1 << 20


class QueueReader:

    def __init__(self, queue: DurableQueue, start_seq: int):
        self._queue = queue
        self._seq = start_seq  # the next seq to return
        self._file: Optional[BinaryIO] = None
        self._segment: Optional[SegmentInfo] = None
        self._end = 0  # one past the current segment's last seq, as far as known (see _segment_end)
        self._durable = 0  # the queue's durable seq when last asked: asked again only once reached
        self._offset = 0
        self._buf = b""  # bytes of the current segment from file offset _buf_at on
        self._buf_at = 0

    @property
    def next_seq(self) -> int:
        return self._seq

    def next(self, timeout: float) -> Optional[Frame]:
        """The entry with the next seq once it is durable, or None after ``timeout`` seconds without one."""
        if self._seq > self._durable:
            # the queue is asked only here, once per durable stretch: the sender's hot path takes no lock
            self._seq = max(self._seq, self._queue.done_seq() + 1)  # past anything dropped meanwhile
            self._durable = self._queue.durable_seq()
            if self._durable < self._seq:
                self._durable = self._queue.wait_durable_after(self._seq - 1, timeout)
                if self._durable < self._seq:
                    return None
        while True:
            if self._segment is None or not (self._segment.first_seq <= self._seq < self._end):
                if self._segment is not None and self._segment.first_seq <= self._seq:
                    self._end = self._segment_end()  # the segment may have grown, or a later one begun
                    if self._seq < self._end:
                        continue
                if self._queue.durable_seq() < self._seq:
                    return None
                if not self._open_segment_of(self._seq):
                    return None
                self._end = self._segment_end()
                continue
            frame = self._frame_at(self._offset, self._seq)
            if frame is not None:
                self._offset += frame.size
                self._seq += 1
                return frame
            self._lose_rest_of_segment()

    def _frame_at(self, offset: int, seq: int) -> Optional[Frame]:
        """The frame at ``offset`` from the read-ahead buffer, read again from the file when the buffer
        does not hold it whole and valid: a buffer filled while the frame was being written holds
        only part of it (frames are never rewritten in place, so a whole valid one is the same)."""
        frame = seg.parse_frame(self._buf, offset - self._buf_at, offset, seq) if offset >= self._buf_at else None
        if frame is None:
            self._buf = os.pread(self._file.fileno(), READ_AHEAD, offset)
            self._buf_at = offset
            frame = seg.parse_frame(self._buf, 0, offset, seq)
            if frame is None and len(self._buf) >= seg.FRAME_HEADER_BYTES:
                length = seg.frame_length(self._buf)
                if seg.FRAME_HEADER_BYTES + length > len(self._buf) and length <= seg.MAX_PAYLOAD_BYTES:
                    self._buf = os.pread(self._file.fileno(), seg.FRAME_HEADER_BYTES + length, offset)  # one larger entry
                    frame = seg.parse_frame(self._buf, 0, offset, seq)
        return frame

    def _lose_rest_of_segment(self) -> None:
        """A durable entry that does not read back: count it and the rest of its segment as corrupt
        and go on with the next segment (sealing this one first if appends still go to it)."""
        if self._is_active():
            self._queue.seal_active(self._segment.first_seq)
        end = self._segment_end()
        self._queue.skip_corrupt(self._seq, end)
        self._seq = end
        self._durable = 0
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
        self._buf, self._buf_at = b"", 0

    def close(self) -> None:
        self._close()
