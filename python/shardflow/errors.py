"""Exceptions raised by the reader. Every message names the dataset, snapshot, shard or key involved."""

from __future__ import annotations


class ShardflowError(Exception):
    """Base class of the reader's own errors."""


class FormatError(ShardflowError):
    """Stored data does not follow the storage format (dataset/FORMAT.md), or uses a newer version of it."""


class SnapshotNotFoundError(ShardflowError):
    """The requested snapshot is not (yet) in the commit log."""


class ChecksumError(ShardflowError):
    """A shard's bytes do not match the size and SHA-256 recorded for it in the commit log.

    The bad file has already been deleted from the cache; reading the shard again downloads it afresh.
    """

    def __init__(self, shard_id: str, object_key: str, expected_sha256: str, actual_sha256: str,
                 expected_bytes: int, actual_bytes: int, where: str):
        self.shard_id = shard_id
        self.object_key = object_key
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        self.expected_bytes = expected_bytes
        self.actual_bytes = actual_bytes
        self.where = where
        super().__init__(
            f"shard {shard_id} ({object_key}) failed verification {where}: the commit log says "
            f"{expected_bytes} bytes with sha256 {expected_sha256}, the file has {actual_bytes} bytes with "
            f"sha256 {actual_sha256}; the bad file was deleted, reading the shard again downloads it afresh")

    def __reduce__(self):
        # Picklable, so the error crosses from a DataLoader worker to the main process intact.
        return (ChecksumError, (self.shard_id, self.object_key, self.expected_sha256, self.actual_sha256,
                                self.expected_bytes, self.actual_bytes, self.where))


class ObjectNotFoundError(ShardflowError):
    """An object the commit log refers to is missing from the store."""


class PageChecksumError(ChecksumError):
    """A page of a shard, fetched with a ranged GET for random access, does not hash to what the
    shard's page index (named by its commit entry) gives for it; fetched twice, wrong both times.

    Nothing of the page was handed to HDF5; the shard object itself is damaged (run ``dataset verify``).
    """

    def __init__(self, shard_id: str, object_key: str, page: int, start: int, length: int, expected_sha256: str,
                 actual_sha256: str):
        self.shard_id = shard_id
        self.object_key = object_key
        self.page = page
        self.start = start
        self.length = length
        self.expected_sha256 = expected_sha256
        self.actual_sha256 = actual_sha256
        self.expected_bytes = self.actual_bytes = length
        self.where = f"page {page}"
        ShardflowError.__init__(
            self, f"shard {shard_id} ({object_key}) failed verification of page {page} (bytes {start}..{start + length - 1}):"
                  f" its page index says sha256 {expected_sha256}, the bytes read have sha256 {actual_sha256}")

    def __reduce__(self):
        return (PageChecksumError, (self.shard_id, self.object_key, self.page, self.start, self.length,
                                    self.expected_sha256, self.actual_sha256))
