"""What the sender uses of the queue: the done cursor, the attempted mark, the synced entries.
A mixin of ``DurableQueue`` (docs/EDGE-QUEUE.md); every method takes the queue's lock."""

from __future__ import annotations

import logging
import time
from typing import List

from shardflow.edge.recovery import SegmentInfo
from shardflow.edge.settings import ATTEMPT_STRIDE

LOG = logging.getLogger("shardflow.edge.queue")


class DeliveryState:

    def ack(self, seq: int) -> None:
        """The broker acknowledged ``seq``; the done cursor moves over every contiguous acknowledged seq."""
        self.ack_many((seq,))

    def ack_many(self, seqs) -> None:
        """``ack`` for several seqs at once: one lock and one cursor write for all of them."""
        with self._cond:
            if self._closed:
                return
            done = self._cursor.done
            self._acked_above.update(s for s in seqs if s > done)
            self._delivering_until = time.monotonic() + 1.0  # the broker answers: the syncer keeps up (commit.py)
            self._move_done()

    def skip_corrupt(self, from_seq: int, to_seq: int) -> None:
        """The reader found entries it cannot read (a bad CRC in a synced segment): counted as lost."""
        with self._cond:
            lost = range(max(from_seq, self._cursor.done + 1), to_seq)
            self.corrupt += len(lost)
            LOG.error("edge queue %s: entries %d..%d are corrupt on disk and cannot be sent", self.directory,
                      from_seq, to_seq - 1)
            self._acked_above.update(lost)
            self._move_done()

    def _move_done(self) -> None:
        done = self._cursor.done
        while done + 1 in self._acked_above:
            done += 1
        if done > self._cursor.done:
            self._advance(done)
            if len(self._segments) > 1 and self._segments[0].end_seq - 1 <= done:
                self._reclaim()
            self._cond.notify_all()

    def _advance(self, done: int) -> None:
        self._cursor.advance(done)
        self._acked_above = {s for s in self._acked_above if s > done}

    def seal_active(self, first_seq: int) -> None:
        """Rolls the active segment if it still is the one starting at ``first_seq``."""
        with self._cond:
            if self._segments[-1].first_seq == first_seq:
                self._roll()

    def attempted_seq(self) -> int:
        """The highest seq the sender may ever have produced (``attempted`` file)."""
        return self._attempted.done

    def mark_attempted(self, seq: int) -> int:
        """Raises the attempted mark to ``seq`` and up to ``ATTEMPT_STRIDE`` synced entries beyond (one
        sync for that many produces), syncs it, and returns it; the sender calls it before it
        produces ``seq``. Not under the queue's lock: the sync must not hold up appends."""
        with self._cond:
            target = max(seq, min(self._durable, seq + ATTEMPT_STRIDE - 1))
        if target > self._attempted.done:
            self._attempted.advance(target)
            self._attempted.sync()
        return self._attempted.done

    def done_seq(self) -> int:
        with self._cond:
            return self._cursor.done

    def durable_seq(self) -> int:
        with self._cond:
            return self._durable

    def segments(self) -> List[SegmentInfo]:
        with self._cond:
            return [SegmentInfo(s.first_seq, s.path, s.size, s.end_seq) for s in self._segments]

    def wait_durable_after(self, seq: int, timeout: float) -> int:
        """Waits until an entry after ``seq`` is durable (or the timeout); returns the durable seq.
        Entries only written (``process`` mode) are synced now rather than at ``fsync_interval``:
        a sender with nothing to send is online and waiting, so delivery does not wait for the
        interval (it stays the longest any written entry waits for its sync)."""
        with self._cond:
            if self._durable <= seq and not self._closed:
                if self._next_seq - 1 > self._durable and not (self._sync_wanted or self._syncing):
                    self._sync_wanted = True
                    self._cond.notify_all()
                if timeout > 0:
                    self._cond.wait(timeout)
            return self._durable
