"""The queue's settings (docs/EDGE-QUEUE.md): its bound and policy, its durability, its resend horizon."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from shardflow.edge import segment as seg
from shardflow.edge.commit import DURABILITIES

POLICIES = ("block", "drop_oldest", "reject")
#: ``process`` mode's default longest wait between a write and its sync (the power-cut window)
PROCESS_FSYNC_INTERVAL = 1.0
#: how far the attempted mark runs ahead of what the sender produced: a crash makes at most this many
#: never-produced entries count as maybe sent (subject to ``resend_horizon``)
ATTEMPT_STRIDE = 1024
#: default ``resend_horizon``: well inside ingest-app's ``queue.sequence.horizon.ms`` (30 days)
RESEND_HORIZON = 7 * 86400.0


@dataclass(frozen=True)
class QueueSettings:
    max_bytes: int = 1 << 30
    policy: str = "block"
    segment_bytes: Optional[int] = None  # default: max_bytes / 8, between 1 and 64 MiB
    #: ``fsync``: seconds a sync waits to gather more appends (default 0: at once); ``process``: the
    #: longest a written entry waits for its sync (default 1 s): what a power cut can lose
    fsync_interval: Optional[float] = None
    block_timeout: float = 30.0
    #: ``fsync``: ``send`` returns once the sample is synced (survives a power cut); ``process``:
    #: once written to the OS (survives kill -9; a power cut loses up to ``fsync_interval`` seconds)
    durability: str = "fsync"
    #: seconds: an entry that may have reached the broker before (it was in flight at a crash or an
    #: outage) and was queued longer ago than this is set aside in ``expired/``, never sent again:
    #: ingest-app forgets a queue's position after ``queue.sequence.horizon.ms`` (docs/EDGE-QUEUE.md)
    resend_horizon: float = RESEND_HORIZON

    def checked(self) -> "QueueSettings":
        if self.policy not in POLICIES:
            raise ValueError(f"queue policy {self.policy!r} is not one of {POLICIES}")
        if self.durability not in DURABILITIES:
            raise ValueError(f"queue durability {self.durability!r} is not one of {DURABILITIES}")
        if self.max_bytes < 4 * seg.HEADER_BYTES + 4096:
            raise ValueError(f"queue max_bytes {self.max_bytes} is too small")
        size = self.segment_bytes or min(64 << 20, max(1 << 20, self.max_bytes // 8))
        if size * 4 > self.max_bytes:
            size = self.max_bytes // 4  # at least four segments fit, so one can drain while another fills
        interval = self.fsync_interval
        if interval is None:
            interval = PROCESS_FSYNC_INTERVAL if self.durability == "process" else 0.0
        if interval < 0 or self.block_timeout < 0:
            raise ValueError("fsync_interval and block_timeout must not be negative")
        if self.resend_horizon <= 0:
            raise ValueError("resend_horizon must be positive")
        return QueueSettings(self.max_bytes, self.policy, size, interval, self.block_timeout, self.durability,
                             self.resend_horizon)
