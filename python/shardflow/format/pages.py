"""Page indexes (dataset/FORMAT.md, "Page index"): the SHA-256 of every fixed-size page of a shard
file, stored as ``<shard object key>.pages.json`` and named by the shard's commit entry
(``pageIndexSha256``), so a reader can verify the few pages of a shard it fetches with ranged GETs.

Page ``k`` of a shard of ``n`` bytes is bytes ``[k * pageSize, min((k + 1) * pageSize, n))``; its
hash is the lowercase hex SHA-256 of exactly those bytes. The index object is compact UTF-8 JSON with
the fields in this order (the Java writer's bytes; a replay writes the same object)::

    {"formatVersion":1,"pageSize":65536,"bytes":150000,"sha256":"<shard>","pages":["<page 0>","<page 1>",...]}
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Tuple

from shardflow.errors import FormatError
from shardflow.format.entries import ShardEntry, is_sha256

PAGE_INDEX_FORMAT = 1
DEFAULT_PAGE_SIZE = 1 << 16
MIN_PAGE_SIZE = 1 << 12
MAX_PAGE_SIZE = 1 << 26
KEY_SUFFIX = ".pages.json"


def page_index_key(shard_object_key: str) -> str:
    """Where the page index of the shard stored at ``shard_object_key`` lives."""
    return shard_object_key + KEY_SUFFIX


@dataclass(frozen=True)
class PageIndex:
    page_size: int
    shard_bytes: int
    shard_sha256: str
    pages: Tuple[str, ...]

    @property
    def page_count(self) -> int:
        return len(self.pages)

    def page_span(self, page: int) -> Tuple[int, int]:
        """``(first byte, byte count)`` of page ``page``: ``page_size`` bytes, fewer for a short last page."""
        start = page * self.page_size
        return start, min(self.page_size, self.shard_bytes - start)


def page_count(size: int, page_size: int) -> int:
    return -(-size // page_size)


def build_page_index(data, page_size: int = DEFAULT_PAGE_SIZE) -> PageIndex:
    """The page index of a shard file's bytes (what a writer stores next to the shard)."""
    _check_page_size(page_size)
    view = memoryview(data).cast("B")
    if len(view) < 1:
        raise ValueError("a shard file has at least one byte")
    pages = tuple(hashlib.sha256(view[k:k + page_size]).hexdigest() for k in range(0, len(view), page_size))
    return PageIndex(page_size, len(view), hashlib.sha256(view).hexdigest(), pages)


def encode_page_index(index: PageIndex) -> bytes:
    """The index object's exact bytes."""
    return json.dumps({"formatVersion": PAGE_INDEX_FORMAT, "pageSize": index.page_size, "bytes": index.shard_bytes,
                       "sha256": index.shard_sha256, "pages": list(index.pages)},
                      separators=(",", ":")).encode("utf-8")


def parse_page_index(data: bytes, shard: ShardEntry, key: str) -> PageIndex:
    """The page index ``shard``'s entry names, from the object's bytes: checked against the entry's
    ``pageIndexSha256`` first (that hash is what makes the page hashes trustworthy), then for a
    layout that describes exactly this shard. Raises :class:`PageIndexMismatch` or
    :class:`FormatError`, naming the key."""
    actual = hashlib.sha256(data).hexdigest()
    if actual != shard.page_index_sha256:
        raise PageIndexMismatch(shard, key, actual)
    try:
        root = json.loads(data)
        if not isinstance(root, dict) or root.get("formatVersion") != PAGE_INDEX_FORMAT:
            found = root.get("formatVersion") if isinstance(root, dict) else None
            raise FormatError(f"page index {key} has formatVersion {found!r}, this reader understands only "
                              f"{PAGE_INDEX_FORMAT}: upgrade shardflow")
        index = PageIndex(int(root["pageSize"]), int(root["bytes"]), str(root["sha256"]),
                          tuple(str(p) for p in root["pages"]))
    except (ValueError, KeyError, TypeError) as e:
        raise FormatError(f"page index {key} is not a valid page index: {e}") from None
    _check_page_size(index.page_size, key)
    if index.shard_bytes != shard.bytes or index.shard_sha256 != shard.sha256:
        raise FormatError(f"page index {key} describes a shard of {index.shard_bytes} bytes with sha256 "
                          f"{index.shard_sha256}, the log says {shard.bytes} with {shard.sha256}")
    if index.page_count != page_count(shard.bytes, index.page_size) or not all(map(is_sha256, index.pages)):
        raise FormatError(f"page index {key} lists {index.page_count} page hashes, a shard of {shard.bytes} bytes "
                          f"in pages of {index.page_size} has {page_count(shard.bytes, index.page_size)}")
    return index


def _check_page_size(page_size: int, where: str = "page size") -> None:
    if not MIN_PAGE_SIZE <= page_size <= MAX_PAGE_SIZE or page_size & (page_size - 1):
        raise FormatError(f"{where}: page size must be a power of two from {MIN_PAGE_SIZE} to {MAX_PAGE_SIZE} "
                          f"bytes, got {page_size}")


class PageIndexMismatch(FormatError):
    """A page index object whose bytes do not hash to what the shard's commit entry says."""

    def __init__(self, shard: ShardEntry, key: str, actual: str):
        self.shard = shard
        self.key = key
        self.actual = actual
        super().__init__(f"page index {key} of shard {shard.shard_id} has sha256 {actual}, the commit log says "
                         f"{shard.page_index_sha256}: it cannot vouch for the shard's pages")

    def __reduce__(self):
        return (PageIndexMismatch, (self.shard, self.key, self.actual))
