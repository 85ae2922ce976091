"""The resend horizon: which queued entries the sender may no longer send (docs/EDGE-QUEUE.md,
Resend horizon).

ingest-app drops a resend by the highest seq it has seen for the queue in that partition, and it
forgets a queue's position once nothing of it arrived for ``queue.sequence.horizon.ms`` of broker
time (30 days by default). A resend arriving later would be taken as new: a duplicate. Only an
entry that may have reached the broker before can be a resend: one at or below the ``attempted``
mark (produced before, never acknowledged: in flight at a crash, or at an outage). Such an entry is
sent again only if it was queued less than ``resend_horizon`` ago (by the device clock: its first
copy cannot be older than that); otherwise it is set aside in ``expired/<seq>.record`` (key,
newline, value), counted and logged, never sent. An entry never produced before is sent whatever
its age: nothing of it can be in the dataset. Within one session, an entry left in flight longer
than the horizon ends the session (``overdue``), so the Kafka client cannot deliver it later.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Callable, Dict, Set, Tuple

from shardflow.edge.segment import Frame

LOG = logging.getLogger("shardflow.edge.sender")
#: a device clock this far behind an entry's queue time cannot tell the entry's age
CLOCK_SLACK_S = 86400.0


class ResendHorizon:

    def __init__(self, queue, horizon_s: float, clock: Callable[[], float] = time.time,
                 monotonic: Callable[[], float] = time.monotonic):
        self._queue = queue
        self._horizon = horizon_s
        self._clock = clock
        self._monotonic = monotonic
        self._before = queue.attempted_seq()  # at or below: an earlier process may have produced it
        self._marked = self._before
        self._produced = 0  # the highest seq this process produced
        self._overdue: Set[int] = set()  # left in flight past the horizon in this process
        self.expired = 0

    def admit(self, frame: Frame, key: bytes, value: bytes) -> bool:
        """True: produce the entry (the attempted mark covers it durably first). False: it was set
        aside and marked done."""
        if frame.seq <= self._before or frame.seq <= self._produced:  # a resend
            age = self._clock() - frame.time_ms / 1000.0
            why = None
            if frame.seq in self._overdue:
                why = "it was in flight longer than the resend horizon"
            elif age > self._horizon:
                why = f"it was queued {age / 86400:.1f} days ago, over the resend horizon of {self._horizon / 86400:.1f} days"
            elif age < -CLOCK_SLACK_S:
                why = f"the device clock reads {-age / 86400:.1f} days before the entry was queued, so its age is unknown"
            if why is not None:
                self._set_aside(frame.seq, key, value, why)
                return False
        if frame.seq > self._marked:
            self._marked = self._queue.mark_attempted(frame.seq)
        self._produced = max(self._produced, frame.seq)
        return True

    def overdue(self, in_flight: Dict[int, Tuple[int, float]]) -> bool:
        """True if the oldest entry in flight was handed to the client longer than the horizon ago;
        every entry in flight is then remembered as overdue (the session must end)."""
        if not in_flight:
            return False
        oldest = next(iter(in_flight.values()))[1]
        if self._monotonic() - oldest <= self._horizon:
            return False
        self._overdue.update(in_flight)
        LOG.error("edge sender: %d entries in flight for longer than the resend horizon (%.1f days); ending the "
                  "session so the client cannot deliver them late", len(in_flight), self._horizon / 86400)
        return True

    def _set_aside(self, seq: int, key: bytes, value: bytes, why: str) -> None:
        path = os.path.join(self._queue.directory, "expired", f"{seq:020d}.record")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(key + b"\n" + value)
            f.flush()
            os.fsync(f.fileno())
        self.expired += 1
        self._overdue.discard(seq)
        LOG.error("edge sender: sample %s (seq %d) may have reached the broker before and is not sent again: %s; "
                  "ingest-app may no longer recognise it as a resend. Set aside in %s: check the dataset for it "
                  "before queueing it anew", key.decode("utf-8", "replace"), seq, why, path)
        self._queue.ack(seq)
