"""How a reader's samples are shaped (:class:`StreamOptions`): seed, epoch, shuffle, split, follow,
download-ahead. Every field but the fetch settings changes which samples come, and in which order."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD, check_fetch_options
from shardflow.reading.order import check_seed

DEFAULT_SHUFFLE_BLOCK = 8192
"""Samples permuted together: a window over a few shards, never the whole dataset."""


@dataclass(frozen=True)
class StreamOptions:
    seed: int = 0
    epoch: int = 0
    shuffle_shards: bool = True
    shuffle_block: int = DEFAULT_SHUFFLE_BLOCK
    drop_last: bool = False
    follow: bool = False
    new_only: bool = False
    poll_interval: float = 5.0
    follow_timeout: Optional[float] = None
    attributes: bool = False
    prefetch: int = DEFAULT_PREFETCH
    range_size: int = DEFAULT_RANGE_SIZE
    range_threshold: int = DEFAULT_RANGE_THRESHOLD

    def __post_init__(self):
        check_seed(self.seed, self.epoch)
        if isinstance(self.shuffle_block, bool) or not isinstance(self.shuffle_block, int) or self.shuffle_block < 0:
            raise ValueError(f"shuffle_block must be an integer >= 0 samples, got {self.shuffle_block!r}")
        if self.new_only and not self.follow:
            raise ValueError("new_only=True reads what each epoch adds: it needs follow=True")
        if self.poll_interval <= 0:
            raise ValueError(f"poll_interval must be > 0 seconds, got {self.poll_interval}")
        if self.follow_timeout is not None and self.follow_timeout < 0:
            raise ValueError(f"follow_timeout must be >= 0 seconds or None, got {self.follow_timeout}")
        check_fetch_options(self.prefetch, self.range_size, self.range_threshold)

    def with_epoch(self, epoch: int) -> "StreamOptions":
        return replace(self, epoch=epoch)
