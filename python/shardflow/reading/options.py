"""How a reader's sample stream is shaped (:class:`StreamOptions`): seed, epoch, shuffle, follow,
download-ahead. Every field but the fetch settings changes which samples come, and in which order."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

from shardflow.reading.fetch import DEFAULT_PREFETCH, DEFAULT_RANGE_SIZE, DEFAULT_RANGE_THRESHOLD, check_fetch_options
from shardflow.reading.order import check_seed


@dataclass(frozen=True)
class StreamOptions:
    seed: int = 0
    epoch: int = 0
    shuffle_shards: bool = True
    shuffle_buffer: int = 1000
    follow: bool = False
    poll_interval: float = 5.0
    follow_timeout: Optional[float] = None
    attributes: bool = False
    prefetch: int = DEFAULT_PREFETCH
    range_size: int = DEFAULT_RANGE_SIZE
    range_threshold: int = DEFAULT_RANGE_THRESHOLD

    def __post_init__(self):
        check_seed(self.seed, self.epoch)
        if self.shuffle_buffer < 0:
            raise ValueError(f"shuffle_buffer must be >= 0, got {self.shuffle_buffer}")
        if self.poll_interval <= 0:
            raise ValueError(f"poll_interval must be > 0 seconds, got {self.poll_interval}")
        if self.follow_timeout is not None and self.follow_timeout < 0:
            raise ValueError(f"follow_timeout must be >= 0 seconds or None, got {self.follow_timeout}")
        check_fetch_options(self.prefetch, self.range_size, self.range_threshold)

    def with_epoch(self, epoch: int) -> "StreamOptions":
        return StreamOptions(**{**{f.name: getattr(self, f.name) for f in fields(self)}, "epoch": epoch})
