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
