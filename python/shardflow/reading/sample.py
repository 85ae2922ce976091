"""One sample as readers hand it out, and what a reader needs from a dataset to make samples."""

from __future__ import annotations

from typing import Optional, Tuple

from shardflow.format.entries import ShardEntry
from shardflow.format.rows import ShardRows
from shardflow.reading.fetch import ShardFetcher
from shardflow.reading.options import StreamOptions

METADATA_KEYS = ("sample_id", "device_id", "produced_at", "attributes")


class Sample(dict):
    """One sample: ``{tensor name: numpy array, ..., "sample_id": str, "device_id": str,
    "produced_at": int}`` (plus ``"attributes"`` if asked for). ``position`` is (epoch, consumed at
    the epoch's start, batch, index in the batch) in the reader's rank share; it is not a key, so it
    never reaches a batch."""

    __slots__ = ("position",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.position: Optional[Tuple[int, ...]] = None

    def __reduce__(self):
        return (_make_sample, (dict(self), self.position))


def _make_sample(data, position):
    s = Sample(data)
    s.position = position
    return s


class ShardSource:
    """What a reader needs from a dataset: a fetcher of verified shard bytes, and opening them."""

    def shard_fetcher(self, opts: StreamOptions) -> ShardFetcher:
        raise NotImplementedError

    def open_rows(self, shard: ShardEntry, data) -> ShardRows:
        raise NotImplementedError
