"""The queue's bound (``max_bytes``, counting segment and spare files) and what a full queue does:
``block``, ``drop_oldest`` or ``reject`` (docs/EDGE-QUEUE.md). A mixin of ``DurableQueue``: every
method runs with the queue's lock held and works on its segments, spares and cursor."""

from __future__ import annotations

import logging
import os
import time

from shardflow.edge import segment as seg
from shardflow.edge.errors import QueueFull

LOG = logging.getLogger("shardflow.edge.queue")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except FileNotFoundError:
        return 0


class BoundPolicies:

    def bytes_on_disk(self) -> int:
        with self._cond:
            return self._disk_bytes()

    def _disk_bytes(self) -> int:
        # spare sizes are remembered, not asked of the file system: this runs on every append
        return sum(s.size for s in self._segments) + sum(self._spare_sizes.setdefault(p, _size(p)) for p in self._spares)

    def _make_room(self, need: int) -> None:
        limit = self.settings.max_bytes
        if need > limit // 2:
            raise QueueFull(f"an append of {need} bytes is over half the queue's max_bytes ({limit})")
        deadline = None
        while self._disk_bytes() + need > limit:
            if self._spares:
                doomed = self._spares.pop()
                self._spare_sizes.pop(doomed, None)
                os.unlink(doomed)
                continue
            if self._reclaim():
                continue
            policy = self.settings.policy
            if policy == "drop_oldest" and self._drop_oldest():
                continue
            if policy == "block":
                deadline = deadline or time.monotonic() + self.settings.block_timeout
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(min(left, 1.0))
                    self._check_open()
                    continue
            raise QueueFull(f"edge queue {self.directory} holds {self._disk_bytes()} bytes of max_bytes "
                            f"{limit} (policy {policy}); {need} more do not fit")

    def _reclaim(self) -> bool:
        """Deletes fully done segments; rolls a fully done active segment so it can go too."""
        done = self._cursor.done
        active = self._segments[-1]
        if len(self._segments) == 1 and active.end_seq > active.first_seq and active.end_seq - 1 <= done \
                and active.size > seg.HEADER_BYTES:
            self._roll()
        doomed = [s for s in self._segments[:-1] if s.end_seq - 1 <= done]
        if not doomed:
            return False
        self._cursor.sync()  # never delete entries the durable cursor does not yet cover
        for s in doomed:
            if len(self._spares) < 2 and self._disk_bytes() + s.size <= self.settings.max_bytes:
                spare = os.path.join(self.directory, f"spare-{s.first_seq:020d}.log")
                os.rename(s.path, spare)
                self._spares.append(spare)
                self._spare_sizes[spare] = s.size
            else:
                os.unlink(s.path)
            self._segments.remove(s)
        return True

    def _drop_oldest(self) -> bool:
        if len(self._segments) == 1:
            active = self._segments[-1]
            if active.end_seq == active.first_seq:
                return False
            self._roll()
        oldest = self._segments[0]
        count = oldest.end_seq - max(oldest.first_seq, self._cursor.done + 1)
        self.dropped += max(count, 0)
        LOG.warning("edge queue %s full (max_bytes %d): dropping %d oldest entries, seqs up to %d",
                    self.directory, self.settings.max_bytes, count, oldest.end_seq - 1)
        self._advance(oldest.end_seq - 1)
        return self._reclaim()
