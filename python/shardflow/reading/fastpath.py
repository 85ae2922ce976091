"""The batch-native fast path: each batch of a reader's share assembled straight from its shards'
columns into contiguous arrays (:class:`~shardflow.reading.batch.BatchBuilder`), several batches
at once on a few threads, while the shards the next batches need download.

Which samples a batch holds, and in which order, is exactly what the per-sample path gives
(:mod:`shardflow.reading.batches`; docs/READING-RULES.md): the positions come from the same
:class:`~shardflow.reading.split.RankShare`, and are turned into (shard, row) as arrays
(:meth:`~shardflow.reading.mix.MixedOrder.locate`). Shards are the verified bytes of the same
fetcher (SHA-256 of the log entry, from the cache or downloaded), opened once per reader and kept
while a batch within the look-ahead still reads them; numpy's copies run without the GIL, so the
assembling threads overlap with each other and with the downloads.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from shardflow.format.entries import ShardEntry
from shardflow.format.gather import Allocate, allocate_numpy
from shardflow.format.rows import ShardRows
from shardflow.format.spec import DatasetSpec
from shardflow.reading.batch import Batch, BatchBuilder, group_rows
from shardflow.reading.batches import _MAX_LOOKAHEAD, order_block
from shardflow.reading.mix import MixedOrder
from shardflow.reading.options import StreamOptions
from shardflow.reading.sample import ShardSource
from shardflow.reading.split import RankShare, worker_batches

DEFAULT_THREADS = 2
"""Batches assembled at once per reader (beside its ``prefetch`` download threads)."""

Key = Tuple[int, str]


class ShardPool:
    """One reader's opened shards, shared by its assembling threads: each opened once, and dropped
    when no batch within the look-ahead reads it any more (:meth:`hold` / :meth:`release`)."""

    def __init__(self, sources: Sequence[ShardSource], opts: StreamOptions):
        self.sources = list(sources)
        self.fetchers = [s.shard_fetcher(opts) for s in self.sources]
        self._opened: Dict[Key, Future] = {}
        self._refs: Counter = Counter()
        self._lock = threading.Lock()

    def schedule(self, shards: Sequence[Tuple[int, ShardEntry]]) -> None:
        """Starts downloading the shards not opened yet, the first needed first."""
        wanted: Dict[int, Dict[str, ShardEntry]] = {}
        for source, shard in shards:
            if (source, shard.shard_id) not in self._opened:
                wanted.setdefault(source, {}).setdefault(shard.shard_id, shard)
        for source, found in wanted.items():
            self.fetchers[source].schedule(list(found.values()))

    def hold(self, keys: Sequence[Key]) -> None:
        with self._lock:
            self._refs.update(set(keys))

    def release(self, keys: Sequence[Key]) -> None:
        dropped = []
        with self._lock:
            for key in set(keys):
                self._refs[key] -= 1
                if self._refs[key] <= 0:
                    del self._refs[key]
                    dropped.append((key[0], self._opened.pop(key, None)))
        for source, opened in dropped:  # batches are copies: the shard's buffer can be used again
            if opened is not None and opened.done() and opened.exception() is None:
                self.fetchers[source].recycle(opened.result().buffer)

    def get(self, source: int, shard: ShardEntry) -> ShardRows:
        key = (source, shard.shard_id)
        with self._lock:
            result = self._opened.get(key)
            mine = result is None
            if mine:
                result = self._opened[key] = Future()
        if mine:
            try:
                result.set_result(self.sources[source].open_rows(shard, self.fetchers[source].get(shard)))
            except BaseException as e:  # noqa: BLE001 - raised in every thread that waits for it
                result.set_exception(e)
        return result.result()

    def close(self, wait: bool = True) -> None:
        with self._lock:
            self._opened.clear()
            self._refs.clear()
        for fetcher in self.fetchers:
            fetcher.close(wait)


class _Planned:
    __slots__ = ("j", "shards", "keys", "groups", "rows", "result")

    def __init__(self, j: int, shards, groups: np.ndarray, rows: np.ndarray):
        self.j, self.shards, self.groups, self.rows = j, shards, groups, rows
        self.keys = [(source, shard.shard_id) for source, shard in shards]
        self.result: Optional[Future] = None


def fast_batches(order: MixedOrder, share: RankShare, batch_size: int, worker: int, num_workers: int,
                 pool: ShardPool, spec: DatasetSpec, threads: int = DEFAULT_THREADS, attributes: bool = False,
                 allocate: Allocate = allocate_numpy) -> Iterator[Tuple[int, Batch]]:
    """``(j, batch)`` for each batch ``j`` this worker makes of its rank's share, in order."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if threads < 0:
        raise ValueError(f"threads must be >= 0, got {threads}")
    mine = worker_batches(share.batch_count(batch_size), worker, num_workers)
    spread = max(1, share.world_size * batch_size * max(num_workers, 1))
    lookahead = max(threads + 1, min(_MAX_LOOKAHEAD, 2 + -(-max(order_block(order), 1) // spread)))
    pending: Deque[_Planned] = deque()
    executor = ThreadPoolExecutor(threads, thread_name_prefix="shardflow-batch") if threads > 0 else None

    def assemble(planned: _Planned) -> Batch:
        builder = BatchBuilder(spec, len(planned.rows), attributes, allocate)
        for group, slots in group_rows(planned.groups):
            source, shard = planned.shards[group]
            builder.add(pool.get(source, shard), slots, planned.rows[slots])
        batch = builder.finish()
        batch.index, batch.position = planned.j, (order.epoch, share.consumed, planned.j)
        return batch

    try:
        while True:
            while len(pending) < lookahead:
                j = next(mine, None)
                if j is None:
                    break
                planned = _Planned(j, *order.locate(share.batch(j, batch_size)))
                pool.hold(planned.keys)
                pending.append(planned)
            if not pending:
                return
            pool.schedule([s for p in pending for s in p.shards])
            if executor is not None:
                for planned in list(pending)[:threads + 1]:
                    if planned.result is None:
                        planned.result = executor.submit(assemble, planned)
            planned = pending.popleft()
            batch = planned.result.result() if planned.result is not None else assemble(planned)
            pool.release(planned.keys)
            yield planned.j, batch
    finally:
        wait = not finalized_inside_thread_start()
        if executor is not None:
            executor.shutdown(wait=wait, cancel_futures=True)
        pool.close(wait)


def finalized_inside_thread_start() -> bool:
    """Whether this cleanup may not wait for threads. A generator dropped without close() is
    finalized by the garbage collector in whichever thread allocates next; inside Thread.start
    that thread holds threading's shutdown-locks lock, and joining a thread there deadlocks
    (CPython 3.11; the lock is private, hence getattr). There the threads are told to stop and left
    to finish on their own."""
    lock = getattr(threading, "_shutdown_locks_lock", None)
    return lock is not None and lock.locked()


def common_spec(datasets: Sequence[Any]) -> DatasetSpec:
    """The spec batches follow: a mix's datasets must agree on tensor names, dtypes and shapes."""
    first = datasets[0].spec
    for d in datasets[1:]:
        if [(t.name, t.dtype, t.shape) for t in d.spec.tensors] != [(t.name, t.dtype, t.shape) for t in first.tensors]:
            raise ValueError(f"{d.name}/{d.version} has other tensors than {first.name}/{first.version}: batches of "
                             f"their mix would not stack (read them sample by sample, Dataset.samples)")
    return first
