"""When appends reach stable storage: group commit and the queue's two durability modes
(docs/EDGE-QUEUE.md, Durability). A mixin of ``DurableQueue``; it works on the queue's lock,
active segment and seq counters.

``fsync`` (the default): ``append`` returns once its entries are synced. One ``fdatasync`` serves
every caller waiting at that moment: the first waiter syncs for all (after ``fsync_interval``
seconds, to gather more), the others wait for it. ``append(wait=False)`` (``send_async``) returns
once written and hands back a future that the background syncer resolves when the entry is synced.

``process``: ``append`` returns once its entries are written to the OS (``pwrite``): they survive
the process being killed, not a power cut. The background syncer syncs what was written at most
``fsync_interval`` seconds after it was written, so a power cut loses at most that much; while the
broker acknowledges deliveries (or the sender waits for entries) it syncs back to back instead, so
delivery never waits on the interval.

Either way the sender only ever reads synced entries: a seq that was sent is on stable storage, so
a power cut can never make the queue hand out a seq again that the broker already holds.

A failed sync (EIO, ENOSPC on a thin disk) cuts what was written since the last good sync, since
its state on disk is unknown: in ``fsync`` mode its callers (and futures) get ``QueueWriteError``
and it was never queued; in ``process`` mode its callers had already returned, so the loss is
counted (``lost``) and raised once from the next ``append`` or ``take_sync_failure``.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import deque
from concurrent.futures import Future, InvalidStateError
from typing import Any, Callable, List, Optional, Tuple

from shardflow.edge.errors import QueueWriteError

LOG = logging.getLogger("shardflow.edge.queue")
DURABILITIES = ("fsync", "process")


class GroupCommit:
    """Needs from the queue: ``_cond`` (a Condition), ``_next_seq``, ``_durable``, ``_durable_size``,
    ``_fd``, ``_segments``, ``_closed``, ``settings``, ``directory`` and ``_undo``."""

    def _start_syncing(self, sync_file: Callable[[int], None]) -> None:
        self._sync_file = sync_file
        self._syncing = False
        self._epoch = 0  # bumped when appends that were written but not synced are discarded
        self._waiters: deque = deque()  # (seq, future, result) of appends that asked not to wait, in seq order
        self._ready: List[Tuple[Future, Any, Optional[BaseException]]] = []  # futures to settle outside the lock
        self._unsynced_since: Optional[float] = None  # monotonic time of the oldest write not yet synced
        self._sync_wanted = False
        self._delivering_until = 0.0  # monotonic time until which the broker counts as reachable (acks came)
        self._sync_failure: Optional[QueueWriteError] = None
        self.lost = 0  # entries ``process`` mode had returned for and a failed sync then cut
        self._syncer = threading.Thread(target=self._sync_loop, name="shardflow-edge-sync", daemon=True)
        self._syncer.start()

    @property
    def durability(self) -> str:
        return self.settings.durability

    # ---- called with the lock held ------------------------------------------------------------------

    def _written(self, last_seq: int, future: Optional[Future], result: Any = None) -> None:
        """Entries up to ``last_seq`` were just written; ``future`` (if any) waits for their sync and
        then resolves to ``result`` (default: ``last_seq``)."""
        first_unsynced = self._unsynced_since is None
        if first_unsynced:
            self._unsynced_since = time.monotonic()
        if future is not None:
            self._waiters.append((last_seq, future, last_seq if result is None else result))
        if future is not None or (first_unsynced and self.durability == "process"):
            self._cond.notify_all()  # the syncer has something new to schedule; else it already has

    def _raise_sync_failure(self) -> None:
        failure, self._sync_failure = self._sync_failure, None
        if failure is not None:
            raise failure

    def _mark_durable(self, upto: int, size: int) -> None:
        self._durable, self._durable_size = max(self._durable, upto), size
        self._unsynced_since = None if self._durable >= self._next_seq - 1 else self._unsynced_since
        while self._waiters and self._waiters[0][0] <= self._durable:
            _, future, result = self._waiters.popleft()
            self._ready.append((future, result, None))
        self._cond.notify_all()

    def _sync_failed(self, error: OSError) -> QueueWriteError:
        """What was written since the last good sync is in doubt: cut it; fail or count its callers."""
        first, last = self._durable + 1, self._next_seq - 1
        self._undo(self._segments[-1], self._durable_size, self._durable + 1)
        self._epoch += 1
        self._unsynced_since = None
        failure = QueueWriteError(error.errno or 5, f"edge queue {self.directory}: sync failed ({error.strerror or error}); "
                                                    f"entries {first}..{last} were not queued")
        while self._waiters:
            _, future, result = self._waiters.popleft()
            self._ready.append((future, result, failure))
        if self.durability == "process" and last >= first:
            self.lost += last - first + 1
            LOG.error("edge queue %s: sync failed (%s); entries %d..%d, written and returned for, are lost", self.directory,
                      error, first, last)
            self._sync_failure = QueueWriteError(
                error.errno or 5, f"edge queue {self.directory}: a background sync failed ({error.strerror or error}): "
                                  f"{last - first + 1} entries that send had returned for (durability='process') were lost; "
                                  f"the queue goes on without them")
        self._cond.notify_all()
        return failure

    def _sync_now(self) -> None:
        """Syncs the active segment inline (a roll, a close); the caller holds the lock."""
        while self._syncing:
            self._cond.wait()
        upto, size = self._next_seq - 1, self._segments[-1].size
        if upto <= self._durable:
            return
        try:
            self._sync_file(self._fd)
        except OSError as e:
            raise self._sync_failed(e) from e
        self._mark_durable(upto, size)

    # ---- called without the lock --------------------------------------------------------------------

    def _settle_ready(self) -> None:
        with self._cond:
            ready, self._ready = self._ready, []
        for future, result, error in ready:
            try:
                if error is None:
                    future.set_result(result)
                else:
                    future.set_exception(error)
            except InvalidStateError:
                pass  # cancelled by its owner: the entry is queued all the same

    def _sync_through(self, seq: int, epoch: int) -> None:
        """Returns once ``seq`` is durable, syncing for everyone if no one else is; raises
        QueueWriteError if a failed sync cut it (``epoch`` changed)."""
        try:
            with self._cond:
                while self._durable < seq:
                    if self._epoch != epoch:
                        raise QueueWriteError(5, f"edge queue {self.directory}: sync failed; nothing of this call was queued")
                    if self._syncing:
                        self._cond.wait()
                        continue
                    self._syncing = True
                    self._cond.release()
                    try:
                        if self.settings.fsync_interval and self.durability == "fsync":
                            time.sleep(self.settings.fsync_interval)  # gather more appends into this sync
                        with self._cond:
                            upto, size, fd = self._next_seq - 1, self._segments[-1].size, self._fd
                        error = None
                        try:
                            self._sync_file(fd)
                        except OSError as e:
                            error = e
                    finally:
                        self._cond.acquire()
                    self._syncing = False
                    if error is not None:
                        raise self._sync_failed(error) from error
                    self._mark_durable(upto, size)
        finally:
            self._settle_ready()

    def _sync_due(self) -> Optional[float]:
        """Seconds until the background syncer should sync (0: now), None when it has nothing to do."""
        if self._syncing or self._next_seq - 1 <= self._durable:
            return None
        if self._sync_wanted or self._waiters:
            return 0.0
        if self.durability == "fsync":
            return None  # the callers of append sync for themselves
        now = time.monotonic()
        if now < self._delivering_until:
            return 0.0  # online: what is written is synced at once, so the sender never waits on the interval
        return max(0.0, self._unsynced_since + self.settings.fsync_interval - now)

    def _sync_loop(self) -> None:
        while True:
            with self._cond:
                while True:
                    if self._closed:
                        return
                    due = self._sync_due()
                    if due == 0.0:
                        break
                    self._cond.wait(due)
                self._sync_wanted = False
                upto, epoch = self._next_seq - 1, self._epoch
            try:
                self._sync_through(upto, epoch)
            except QueueWriteError:
                pass  # handed to the waiting callers and futures, or kept for the next call (process mode)
            except Exception:  # noqa: BLE001 - the syncer must outlive any surprise; it is logged
                LOG.exception("edge queue %s: background sync failed", self.directory)
                time.sleep(0.1)

    def request_sync(self) -> None:
        """Asks the background syncer to sync what is written now (flush, close)."""
        with self._cond:
            self._sync_wanted = True
            self._cond.notify_all()

    def take_sync_failure(self) -> None:
        """Raises (once) a background sync's failure not yet reported (``process`` mode)."""
        with self._cond:
            self._raise_sync_failure()

    def _stop_syncing(self) -> None:
        self._syncer.join(timeout=10.0)
        self._settle_ready()
