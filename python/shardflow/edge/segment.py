"""The queue's on-disk records (docs/EDGE-QUEUE.md): segment files of checksummed frames.

A segment ``segment-<first seq, 20 digits>.log`` starts with a 32-byte header and holds frames:

    length   u32  payload bytes
    crc      u32  CRC-32 (zlib) of seq, time and payload
    seq      u64  the entry's sequence number, one more than the previous entry's
    time_ms  i64  when ``send`` queued it (device clock, ms since the epoch)
    payload       key length u16, key (UTF-8 sample id), value (Avro body of the Sample)

All integers big-endian. A frame that is short, fails its CRC or breaks the sequence ends the
segment's valid part: that is a torn write, cut at start-up (only the newest segment can have one:
a segment is synced before the next is created).
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import BinaryIO, Iterator, List, Optional, Tuple

from shardflow.edge.crc import crc32
from shardflow.edge.errors import QueueFormatError

MAGIC = b"SFEDGEQ1"
FORMAT_VERSION = 1
_HEADER = struct.Struct(">8sIIQI")  # magic, version, reserved, first seq, crc of the preceding 24 bytes
HEADER_BYTES = 32
_FRAME = struct.Struct(">IIQq")
FRAME_HEADER_BYTES = _FRAME.size  # 24
_KEY_LEN = struct.Struct(">H")
#: a frame longer than this is treated as garbage (a torn length), never allocated
MAX_PAYLOAD_BYTES = 256 << 20


def segment_name(first_seq: int) -> str:
    return f"segment-{first_seq:020d}.log"


def parse_segment_name(name: str) -> Optional[int]:
    if name.startswith("segment-") and name.endswith(".log") and len(name) == len("segment-") + 20 + 4:
        digits = name[len("segment-"):-4]
        if digits.isdigit():
            return int(digits)
    return None


def header_bytes(first_seq: int) -> bytes:
    head = struct.pack(">8sIIQ", MAGIC, FORMAT_VERSION, 0, first_seq)
    return _HEADER.pack(MAGIC, FORMAT_VERSION, 0, first_seq, crc32(head)).ljust(HEADER_BYTES, b"\0")


def read_header(f: BinaryIO, where: str) -> Optional[int]:
    """The segment's first seq; None for a header torn at creation (a file shorter than the header or
    with a bad CRC, which only the newest segment can be); QueueFormatError for another format."""
    raw = f.read(HEADER_BYTES)
    if len(raw) < HEADER_BYTES:
        return None
    magic, version, _, first_seq, crc = _HEADER.unpack_from(raw)
    if magic != MAGIC:
        if raw.count(0) == len(raw):
            return None  # allocated but never written
        raise QueueFormatError(f"{where} is not an edge queue segment (magic {magic!r})")
    if crc32(raw[:24]) != crc:
        return None
    if version != FORMAT_VERSION:
        raise QueueFormatError(f"{where} has queue format version {version}; this SDK reads {FORMAT_VERSION}")
    return first_seq


def encode_payload(key: bytes, value: bytes) -> bytes:
    return _KEY_LEN.pack(len(key)) + key + value


def split_payload(payload: bytes) -> Tuple[bytes, bytes]:
    (n,) = _KEY_LEN.unpack_from(payload)
    return bytes(payload[2:2 + n]), bytes(payload[2 + n:])


def frame_parts(seq: int, time_ms: int, key: bytes, value) -> List:
    """A frame as buffers for one ``pwritev``: header, key length and key, value. The value is not
    copied into a payload first (at 64 KiB a copy is worth avoiding)."""
    prefix = _KEY_LEN.pack(len(key)) + key
    crc = crc32(value, crc32(prefix, crc32(struct.pack(">Qq", seq, time_ms))))
    return [_FRAME.pack(len(prefix) + len(value), crc, seq, time_ms), prefix, value]


def split_payload_view(payload) -> Tuple[bytes, memoryview]:
    """Key and value of a payload, the value as a view of it (no copy)."""
    view = memoryview(payload)
    (n,) = _KEY_LEN.unpack_from(view)
    return bytes(view[2:2 + n]), view[2 + n:]


def frame_header(seq: int, time_ms: int, payload: bytes) -> bytes:
    crc = crc32(payload, crc32(struct.pack(">Qq", seq, time_ms)))
    return _FRAME.pack(len(payload), crc, seq, time_ms)


@dataclass(frozen=True)
class Frame:
    seq: int
    time_ms: int
    payload: bytes  # or a memoryview of the reader's buffer (parse_frame)
    offset: int  # where the frame starts in its segment

    @property
    def size(self) -> int:
        return FRAME_HEADER_BYTES + len(self.payload)


def read_frame(f: BinaryIO, offset: int, expected_seq: Optional[int]) -> Optional[Frame]:
    """The frame at ``offset``, or None where the valid part ends (end of file, a torn or corrupt
    frame, a seq out of order)."""
    head = f.read(FRAME_HEADER_BYTES)
    if len(head) < FRAME_HEADER_BYTES:
        return None
    length, crc, seq, time_ms = _FRAME.unpack(head)
    if length > MAX_PAYLOAD_BYTES or (expected_seq is not None and seq != expected_seq):
        return None
    payload = f.read(length)
    if len(payload) < length or crc32(payload, crc32(head[8:])) != crc:
        return None
    return Frame(seq, time_ms, payload, offset)


def frame_length(buf: bytes) -> int:
    """The payload length a frame header at the start of ``buf`` claims."""
    return _FRAME.unpack_from(buf)[0]


def parse_frame(buf: bytes, at: int, offset: int, expected_seq: int) -> Optional[Frame]:
    """The frame at ``buf[at:]`` (``offset`` in its segment), or None if ``buf`` does not hold a
    whole valid frame there: read_frame on bytes already read."""
    if len(buf) - at < FRAME_HEADER_BYTES:
        return None
    length, crc, seq, time_ms = _FRAME.unpack_from(buf, at)
    end = at + FRAME_HEADER_BYTES + length
    if seq != expected_seq or length > MAX_PAYLOAD_BYTES or end > len(buf):
        return None
    view = memoryview(buf)
    if crc32(view[at + FRAME_HEADER_BYTES:end], crc32(view[at + 8:at + FRAME_HEADER_BYTES])) != crc:
        return None
    return Frame(seq, time_ms, view[at + FRAME_HEADER_BYTES:end], offset)  # a view of the buffer: no copy


def scan(f: BinaryIO, first_seq: int) -> Iterator[Frame]:
    """Every valid frame from the start of the segment (after its header), in order."""
    offset = HEADER_BYTES
    f.seek(offset)
    expected = first_seq
    while True:
        frame = read_frame(f, offset, expected)
        if frame is None:
            return
        yield frame
        offset += frame.size
        expected += 1


def skip_headers(f: BinaryIO, first_seq: int, target_seq: int, file_size: int) -> Tuple[int, int]:
    """Walks frame headers without reading payloads up to the frame of ``target_seq``: (offset, seq)
    of the first frame at or after it, or the end of the segment. Payloads are checked later, when
    the sender reads them."""
    offset, seq = HEADER_BYTES, first_seq
    while seq < target_seq and offset + FRAME_HEADER_BYTES <= file_size:
        f.seek(offset)
        length, _, found, _ = _FRAME.unpack(f.read(FRAME_HEADER_BYTES))
        if found != seq or length > MAX_PAYLOAD_BYTES:
            break
        offset += FRAME_HEADER_BYTES + length
        seq += 1
    return offset, seq


def fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
