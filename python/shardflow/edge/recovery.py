"""Opening a queue directory: which segments exist, where the valid part of the newest one ends.

Only the newest segment is read through (a torn tail can only be there, docs/EDGE-QUEUE.md); the
older ones are taken by their size, so start-up costs one segment's read whatever the backlog.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import List

from shardflow.edge import segment as seg

LOG = logging.getLogger(__name__)


@dataclass
class SegmentInfo:
    first_seq: int
    path: str
    size: int
    #: one past the last seq it holds; known for the newest segment and for sealed ones once a later one exists
    end_seq: int


@dataclass
class Recovered:
    segments: List[SegmentInfo]  # oldest first; the last is the one appends go to
    next_seq: int
    cut_bytes: int  # bytes of torn tail removed


def recover(directory: str, done_seq: int) -> Recovered:
    """Lists the segments, cuts a torn tail off the newest, removes segments wholly at or below
    ``done_seq``, and makes sure there is a newest segment to append to."""
    names = sorted(n for n in os.listdir(directory) if seg.parse_segment_name(n) is not None)
    infos = [SegmentInfo(seg.parse_segment_name(n), os.path.join(directory, n), 0, 0) for n in names]
    for i, info in enumerate(infos):
        info.size = os.path.getsize(info.path)
        if i + 1 < len(infos):
            info.end_seq = infos[i + 1].first_seq
    cut = 0
    while infos:
        newest = infos[-1]
        with open(newest.path, "rb") as f:
            first = seg.read_header(f, newest.path)
            if first is None or first != newest.first_seq:
                # created but its header never became durable: nothing in it was ever acknowledged
                LOG.warning("edge queue: removing segment %s with a torn header", newest.path)
                cut += newest.size
                os.unlink(newest.path)
                infos.pop()
                continue
            end_offset, end_seq = seg.HEADER_BYTES, newest.first_seq
            for frame in seg.scan(f, newest.first_seq):
                end_offset, end_seq = frame.offset + frame.size, frame.seq + 1
        if end_offset < newest.size:
            # a torn write, or the old frames of a reused file
            LOG.info("edge queue: cutting %d bytes after seq %d from %s",
                        newest.size - end_offset, end_seq - 1, newest.path)
            cut += newest.size - end_offset
            with open(newest.path, "r+b") as f:
                f.truncate(end_offset)
                os.fsync(f.fileno())
        newest.size, newest.end_seq = end_offset, end_seq
        break
    next_seq = max(infos[-1].end_seq if infos else 1, done_seq + 1)
    fully_done = bool(infos) and infos[-1].first_seq < infos[-1].end_seq <= done_seq + 1
    if not infos or infos[-1].end_seq != next_seq or fully_done:
        # no segment, or every entry is done: start one at next_seq (so seqs never repeat) and let the old go
        if infos and infos[-1].end_seq == infos[-1].first_seq:
            os.unlink(infos.pop().path)
        infos.append(create_segment(directory, next_seq))
    # Segments wholly done (acknowledged or dropped) but not yet deleted when the process stopped.
    while len(infos) > 1 and infos[0].end_seq - 1 <= done_seq:
        os.unlink(infos.pop(0).path)
    return Recovered(infos, next_seq, cut)


def create_segment(directory: str, first_seq: int, reuse: str = None) -> SegmentInfo:
    """A new segment, in the file ``reuse`` (a done segment, renamed) when given: its old frames stay
    behind the write position, where their seqs (all lower) end any scan."""
    path = os.path.join(directory, seg.segment_name(first_seq))
    if reuse is not None:
        os.rename(reuse, path)
        fd = os.open(path, os.O_WRONLY)
    else:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.pwrite(fd, seg.header_bytes(first_seq), 0)
        os.fsync(fd)
        seg.fsync_dir(directory)
    except OSError:
        os.close(fd)
        fd = None
        try:
            os.unlink(path)
        except OSError:
            pass
        raise
    finally:
        if fd is not None:
            os.close(fd)
    return SegmentInfo(first_seq, path, seg.HEADER_BYTES, first_seq)
