"""CRC-32 (the zlib polynomial) of the queue's frames, cursor slots and headers (docs/EDGE-QUEUE.md).

zlib-ng's (the ``edge`` extra) computes the very same values with the CPU's carry-less multiply,
about ten times as fast as zlib's table code: at 64 KiB per entry, checked once when written and
once when read back, that is most of a CPU's work per sample in the queue. Without it, zlib's.
"""

try:
    from zlib_ng.zlib_ng import crc32
except ImportError:  # pragma: no cover - a device without the extra still reads and writes the same files
    from zlib import crc32

__all__ = ["crc32"]
