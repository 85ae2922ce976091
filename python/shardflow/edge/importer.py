"""Bulk import of files into a dataset through the same durable queue: ``shardflow-edge import DIR``.

What DIR may hold (checked in this order):
- an index, ``--index FILE`` (CSV with a header, or JSON lines): a ``path`` (relative to the index)
  and a ``label`` per row, any other column becomes an attribute;
- image folders: ``DIR/<label>/*.jpg|*.jpeg|*.png``, the label being the sub-folder's name (its index
  among the sorted folder names for a numeric label tensor);
- ``.npz`` files (arrays named as the spec's tensors) and ``.npy`` files (the spec's one non-label
  tensor), anywhere below DIR, labelled by their sub-folder as images are.

Each file becomes one sample whose id derives from its path below DIR, so a second import of the
same tree names the same samples. Items go in sorted order, ``batch`` per disk sync; after each
batch the count done is saved in the queue directory. A run killed at any point and started again
skips what was done: the saved count, plus the ids already in the queue's newest segments (a batch
queued just before the kill, whose count was not saved yet).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Set

import numpy as np

from shardflow.edge import segment as seg
from shardflow.edge.producer import EdgeProducer

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


@dataclass
class Item:
    path: str  # absolute
    rel: str  # below DIR: what the sample id derives from
    label: Any
    attributes: Dict[str, str] = field(default_factory=dict)

    @property
    def sample_id(self) -> str:
        return "import-" + hashlib.sha256(self.rel.encode("utf-8")).hexdigest()[:32]


def list_items(root: str, index: Optional[str] = None) -> List[Item]:
    root = os.path.abspath(root)
    if index:
        return _indexed(root, index)
    items = []
    folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.lower().endswith(IMAGE_SUFFIXES + (".npy", ".npz")):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                top = rel.split(os.sep)[0] if os.sep in rel else None
                items.append(Item(path, rel, top))
    return items if not folders else [_label_index(i, folders) for i in items]


def _label_index(item: Item, folders: List[str]) -> Item:
    item.attributes["folder"] = item.label or ""
    return item


def _indexed(root: str, index: str) -> List[Item]:
    base = os.path.dirname(os.path.abspath(index))
    with open(index, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f)) if index.lower().endswith(".csv") else [json.loads(line) for line in f if line.strip()]
    items = []
    for n, row in enumerate(rows, 1):
        if "path" not in row:
            raise ValueError(f"{index} row {n} has no 'path'")
        path = os.path.normpath(os.path.join(base, row["path"]))
        extra = {k: str(v) for k, v in row.items() if k not in ("path", "label") and v not in (None, "")}
        items.append(Item(path, os.path.relpath(path, root), row.get("label"), extra))
    return items


class Importer:

    def __init__(self, producer: EdgeProducer, root: str, index: Optional[str] = None, batch: int = 64,
                 progress=sys.stderr):
        self._producer = producer
        self._spec = producer._spec.spec
        self._items = list_items(root, index)
        self._folders = sorted({i.attributes.get("folder") for i in self._items if i.attributes.get("folder")})
        self._batch = batch
        self._progress = progress
        digest = hashlib.sha256((os.path.abspath(root) + "|" + (index or "")).encode()).hexdigest()[:16]
        self._state = os.path.join(producer._queue.directory, f"import-{digest}.json")

    def run(self) -> int:
        """Queues every item not yet queued; returns how many it queued in this run."""
        done = self._load_done()
        recent = self._recent_ids()
        queued, started, total = 0, time.monotonic(), len(self._items)
        for start in range(done, total, self._batch):
            chunk = [i for i in self._items[start:start + self._batch] if i.sample_id not in recent]
            if chunk:
                self._producer.send_many([self._sample(i) for i in chunk])
                queued += len(chunk)
            self._save_done(min(start + self._batch, total))
            self._report(min(start + self._batch, total), total, started)
        self._report(total, total, started, end=True)
        return queued

    def _sample(self, item: Item) -> Dict[str, Any]:
        tensors = self._tensors(item)
        label = self._label(item)
        return dict(tensors=tensors, labels=label, sample_id=item.sample_id,
                    metadata={"source": item.rel[-200:], **{k: v for k, v in item.attributes.items() if k != "folder"}})

    def _tensors(self, item: Item) -> Dict[str, Any]:
        name = item.path.lower()
        data_tensors = [t for t in self._spec.tensors if t.name != self._spec.label_tensor]
        if name.endswith(".npz"):
            with np.load(item.path) as arrays:
                return {k: arrays[k] for k in arrays.files if k != self._spec.label_tensor}
        if len(data_tensors) != 1:
            raise ValueError(f"{item.rel}: the spec has {len(data_tensors)} data tensors; a single file fills one")
        target = data_tensors[0]
        if name.endswith(".npy"):
            return {target.name: np.load(item.path)}
        if target.dtype == "bytes":
            if target.encoding and not _matches(name, target.encoding):
                from PIL import Image
                return {target.name: Image.open(item.path)}  # re-encoded by the SDK as the spec says
            with open(item.path, "rb") as f:
                return {target.name: f.read()}
        from PIL import Image
        with Image.open(item.path) as image:
            return {target.name: np.asarray(image)}

    def _label(self, item: Item) -> Any:
        label = self._spec.label
        if label is None or item.label is None:
            return None
        if label.dtype == "string":
            return str(item.label)
        if item.attributes.get("folder") and self._folders and str(item.label) in self._folders:
            return np.asarray(self._folders.index(str(item.label)), dtype=label.numpy_dtype)
        return np.asarray(int(item.label), dtype=label.numpy_dtype)

    def _recent_ids(self) -> Set[str]:
        ids = set()
        for info in self._producer._queue.segments()[-2:]:
            with open(info.path, "rb") as f:
                for frame in seg.scan(f, info.first_seq):
                    ids.add(seg.split_payload(frame.payload)[0].decode("utf-8", "replace"))
        return ids

    def _load_done(self) -> int:
        try:
            with open(self._state, encoding="utf-8") as f:
                state = json.load(f)
            return int(state["done"]) if state.get("items") == len(self._items) else 0
        except (OSError, ValueError, KeyError):
            return 0

    def _save_done(self, done: int) -> None:
        tmp = self._state + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"done": done, "items": len(self._items)}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._state)

    def _report(self, done: int, total: int, started: float, end: bool = False) -> None:
        if self._progress is None:
            return
        rate = done / max(time.monotonic() - started, 1e-9)
        width = 30
        bar = "#" * int(width * done / max(total, 1))
        self._progress.write(f"\rimport [{bar:<{width}}] {done}/{total} files, {rate:.0f}/s" + ("\n" if end else ""))
        self._progress.flush()


def _matches(name: str, encoding: str) -> bool:
    return (encoding == "image/jpeg" and name.endswith((".jpg", ".jpeg"))) or (encoding == "image/png" and name.endswith(".png"))
