"""A torch file from the store straight into the tensors' memory: no temporary file, no second copy.

The zip's central directory (a ranged GET of the file's end) says where each record starts; every
tensor storage is allocated at its size, and the file comes down as parallel ranged GETs of
``part_size`` bytes whose bytes are copied from the part into the storages they cover, hashed in
file order on the way (the whole file's SHA-256, as the manifest records it). Then torch's own
unpickler (``torch.serialization._load``) builds the objects around those storages.

Record positions are computed for the zip layout that :mod:`shardflow.checkpoints.torchzip` writes
(no alignment padding; a 20-byte zip64 extra on records of 2 GiB - 1 MiB or more), and every local
header is checked once it has come down: a file laid out otherwise (a plain ``torch.save``)
raises :class:`LayoutMismatch` and the caller falls back to a temporary file and ``torch.load``.
"""

from __future__ import annotations

import bisect
import inspect
import io
import pickle
import struct
import zipfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Tuple

from shardflow.checkpoints.download import InOrderHash, mismatch
from shardflow.checkpoints.manifest import SavedFile
from shardflow.checkpoints.torchzip import ZIP64_FROM
from shardflow.storage.objectstore import ObjectStore

_TAIL = 1 << 20
_LOCAL_HEADER = 30


class LayoutMismatch(Exception):
    """The file is not laid out as the streamed writer lays out its records."""


def load_direct(store: ObjectStore, saved: SavedFile, part_size: int, parallelism: int, map_location: Any) -> Any:
    import torch

    loader = getattr(torch.serialization, "_load", None)
    expected = ["zip_file", "map_location", "pickle_module"]
    if loader is None or list(inspect.signature(loader).parameters)[:3] != expected:
        raise LayoutMismatch(f"torch {torch.__version__} has no torch.serialization._load(zip_file, map_location, ...)")
    records = _records(store, saved)
    targets: Dict[str, Any] = {}
    for name, (_, size) in records.items():
        targets[name] = torch.empty(size, dtype=torch.uint8) if "/data/" in name else bytearray(size)
    headers = {name: bytearray(_LOCAL_HEADER + len(name.encode())) for name in records}
    spans = sorted([(start, size, _view(targets[name])) for name, (start, size) in records.items()]
                   + [(start - len(headers[name]) - _zip64_extra(records[name][1]), len(headers[name]),
                       memoryview(headers[name])) for name, (start, _) in records.items()], key=lambda s: s[0])
    _download(store, saved, spans, part_size, parallelism)
    for name, (start, size) in records.items():
        _check_header(name, headers[name], size)
    prefix = next(iter(records)).split("/", 1)[0]
    return loader(_Records(prefix, targets), map_location, pickle)


def _zip64_extra(size: int) -> int:
    return 20 if size >= ZIP64_FROM else 0


def _records(store: ObjectStore, saved: SavedFile) -> Dict[str, Tuple[int, int]]:
    """Record name -> (where its data starts, its size), from the central directory."""
    start = max(0, saved.bytes - _TAIL)
    tail = bytearray(saved.bytes - start)
    store.read_into(saved.key, memoryview(tail), start)
    try:
        infos = zipfile.ZipFile(_Window(saved.bytes, start, tail)).infolist()
    except _OutsideWindow as e:  # a central directory larger than the tail: read from where it starts
        start = e.position
        tail = bytearray(saved.bytes - start)
        store.read_into(saved.key, memoryview(tail), start)
        infos = zipfile.ZipFile(_Window(saved.bytes, start, tail)).infolist()
    except zipfile.BadZipFile as e:
        raise LayoutMismatch(str(e)) from None
    records = {}
    for info in infos:
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise LayoutMismatch(f"record {info.filename} is compressed")
        data = info.header_offset + _LOCAL_HEADER + len(info.filename.encode()) + _zip64_extra(info.file_size)
        records[info.filename] = (data, info.file_size)
    if not records or any(n.split("/", 1)[0] != next(iter(records)).split("/", 1)[0] for n in records):
        raise LayoutMismatch("not one archive folder")
    return records


def _check_header(name: str, header: bytearray, size: int) -> None:
    signature, name_length, extra_length = struct.unpack("<I22xHH", bytes(header[:_LOCAL_HEADER]))
    if signature != 0x04034B50 or name_length != len(name.encode()) or extra_length != _zip64_extra(size) \
            or bytes(header[_LOCAL_HEADER:]) != name.encode():
        raise LayoutMismatch(f"the local header of {name} is not the streamed writer's")


def _download(store: ObjectStore, saved: SavedFile, spans: List[Tuple[int, int, memoryview]], part_size: int,
              parallelism: int) -> None:
    starts = [s[0] for s in spans]
    ordered = InOrderHash()

    def fetch(begin: int) -> None:
        part = bytearray(min(part_size, saved.bytes - begin))
        try:
            size = store.read_into(saved.key, memoryview(part), begin)
            if size != saved.bytes:
                raise mismatch(saved, "while downloading", f"an object of {size} bytes", size)
            end = begin + len(part)
            for i in range(max(0, bisect.bisect_right(starts, begin) - 1), len(spans)):
                at, length, target = spans[i]
                if at >= end:
                    break
                lo, hi = max(at, begin), min(at + length, end)
                if lo < hi:
                    target[lo - at:hi - at] = memoryview(part)[lo - begin:hi - begin]
        except BaseException:
            ordered.fail()
            raise
        ordered.add(begin, part)

    with ThreadPoolExecutor(max(1, parallelism), thread_name_prefix="ckpt-get") as pool:
        for done in [pool.submit(fetch, begin) for begin in range(0, saved.bytes, part_size)]:
            done.result()
    digest = ordered.sha256.hexdigest()
    if digest != saved.sha256:
        raise mismatch(saved, "after download", digest, saved.bytes)


def _view(target) -> memoryview:
    if isinstance(target, bytearray):
        return memoryview(target)
    return memoryview(target.numpy()).cast("B")


class _Records:
    """What ``torch.serialization._load`` reads from: the records, already in memory."""

    def __init__(self, prefix: str, targets: Dict[str, Any]):
        self._prefix, self._targets = prefix, targets

    def get_record(self, name: str) -> bytes:
        return bytes(self._targets[f"{self._prefix}/{name}"])

    def get_storage_from_record(self, name: str, numel: int, dtype) -> Any:
        tensor = self._targets[f"{self._prefix}/{name}"]
        if tensor.numel() != numel:
            raise LayoutMismatch(f"record {name} holds {tensor.numel()} bytes, the pickle expects {numel}")
        return tensor


class _OutsideWindow(Exception):
    def __init__(self, position: int):
        self.position = position


class _Window(io.RawIOBase):
    """A read-only file of ``size`` bytes of which only ``[start, size)`` is at hand."""

    def __init__(self, size: int, start: int, data: bytearray):
        self._size, self._start, self._data, self._pos = size, start, data, 0

    def seekable(self):
        return True

    def readable(self):
        return True

    def seek(self, offset, whence=0):
        self._pos = offset if whence == 0 else (self._pos + offset if whence == 1 else self._size + offset)
        return self._pos

    def tell(self):
        return self._pos

    def read(self, n=-1):
        end = self._size if n is None or n < 0 else min(self._size, self._pos + n)
        if self._pos < self._start and end > self._pos:
            raise _OutsideWindow(self._pos)
        out = bytes(self._data[self._pos - self._start:end - self._start])
        self._pos = end
        return out
