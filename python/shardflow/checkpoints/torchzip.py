"""``torch.save`` streamed: the same file (a zip of ``data.pkl`` and one record per storage), but
every tensor's bytes go to the output in 1 MiB slices read straight from the tensor's memory.

``torch.save`` into a Python stream hands each storage over in one ``write`` of a fresh ``bytes``
copy (torch 1.13 measured: a 50 MB tensor is one 50 MB write), so a checkpoint's memory would grow
with its largest tensor. Here torch's own serializer (``torch.serialization._save``, which decides
the pickle and the records) writes into :class:`_StreamedRecords`, which lays the records out with
Python's zipfile in streaming mode. ``torch.load`` reads the result like any ``torch.save`` file.
Where that private function is missing or has another signature, plain ``torch.save`` is used
(correct, with memory bounded by the largest tensor instead).
"""

from __future__ import annotations

import ctypes
import inspect
import logging
import pickle
import zipfile
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

SLICE = 1 << 20
ZIP64_FROM = (1 << 31) - (1 << 20)
_VERSION = b"3\n"
"""The record torch's own writer adds at the end (file format version 3, torch 1.6 and later)."""


def save_streamed(obj: Any, out: BinaryIO) -> None:
    import torch

    save = getattr(torch.serialization, "_save", None)
    if save is None or list(inspect.signature(save).parameters)[:4] != [
            "obj", "zip_file", "pickle_module", "pickle_protocol"]:
        log.warning("torch %s has no torch.serialization._save(obj, zip_file, pickle_module, pickle_protocol): "
                    "using torch.save, whose memory grows with the largest tensor", torch.__version__)
        torch.save(obj, out)
        return
    records = _StreamedRecords(out)
    save(obj, records, pickle, torch.serialization.DEFAULT_PROTOCOL)
    records.close()


class _StreamedRecords:
    """What ``torch.serialization._save`` writes into: ``write_record(name, data, nbytes)`` where
    ``data`` is bytes or, for a storage, the address of its ``nbytes`` bytes in CPU memory (valid
    during the call: ``_save`` holds the storage)."""

    def __init__(self, out: BinaryIO):
        # An output without seek/tell: zipfile writes sizes after each record (data descriptors).
        self._zip = zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True)

    def write_record(self, name: str, data, nbytes: int) -> None:
        if isinstance(data, int):
            view = memoryview((ctypes.c_char * nbytes).from_address(data)).cast("B") if nbytes else memoryview(b"")
        else:
            view = memoryview(data).cast("B")[:nbytes]
        with self._zip.open(f"archive/{name}", "w", force_zip64=nbytes >= ZIP64_FROM) as record:
            for start in range(0, nbytes, SLICE):
                record.write(view[start:start + SLICE])

    def close(self) -> None:
        self.write_record("version", _VERSION, len(_VERSION))
        self._zip.close()
