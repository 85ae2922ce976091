"""Errors of the edge producer SDK. Each is raised at ``send`` (or at start) with nothing queued,
and each message names the setting, limit or tensor involved."""

from __future__ import annotations

from shardflow.errors import ShardflowError


class EdgeError(ShardflowError):
    """Base class of the edge SDK's own errors."""


class SampleRejected(EdgeError, ValueError):
    """The sample does not fit the dataset's spec or the wire limits; it was not queued.

    ``reason`` is the code ingest-app would have dead-lettered it with (docs/producing/wire-format.md)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class SampleTooLarge(SampleRejected):
    """The encoded record is larger than the broker takes (``max.message.bytes``)."""

    def __init__(self, detail: str, limit: int):
        super().__init__("OVERSIZE_SAMPLE", detail)
        self.limit = limit


class QueueFull(EdgeError):
    """The queue is at ``max_bytes`` and its policy is ``reject`` (or ``block`` timed out)."""


class QueueWriteError(EdgeError, OSError):
    """Writing or syncing the queue failed (disk full, I/O error): the sample was not queued and the
    queue on disk is as it was before the call."""


class QueueLocked(EdgeError):
    """Another process has the queue directory open."""


class QueueFormatError(EdgeError):
    """A queue file is not in the format this SDK writes (docs/EDGE-QUEUE.md), or of a newer version."""


class RegistryModeMismatch(EdgeError):
    """The registry or the configured id mode would frame records differently from what ingest-app reads."""


class RegistryAccessDenied(EdgeError):
    """The registry or its identity provider refused this producer's credentials (401) or principal
    (403): a configuration error whose message names the setting; never retried."""


class ProducerClosed(EdgeError):
    """``send`` after ``close``."""


class DeliveryStopped(EdgeError):
    """The background sender stopped on an error it cannot retry (see ``stats().last_error``)."""
