"""The batches one reader (a rank's DataLoader worker, or the rank itself) makes: epoch positions
turned into (source, shard, row), the shards fetched ahead and opened once, and only the rows
needed taken from them (:class:`~shardflow.format.rows.ShardRows`).

Shards stay open while a batch of the next few the reader will make needs them; the positions
say exactly which shards those are, so what is downloaded ahead is what will be read next.
"""

from __future__ import annotations

from collections import deque
from typing import Deque, Dict, Iterator, List, Optional, Sequence, Tuple

from shardflow.format.entries import ShardEntry
from shardflow.format.rows import ShardRows
from shardflow.reading.fetch import ShardFetcher
from shardflow.reading.mix import MixedOrder
from shardflow.reading.options import StreamOptions
from shardflow.reading.sample import Sample, ShardSource
from shardflow.reading.split import RankShare, worker_batches

Entry = Tuple[int, ShardEntry, int]
_MAX_LOOKAHEAD = 64


class RowReader:
    """Rows of several sources' shards for one process: fetchers made here (their threads and S3
    clients belong to the process that iterates), opened shards kept while they are still needed."""

    def __init__(self, sources: Sequence[ShardSource], opts: StreamOptions):
        self.sources = list(sources)
        self.opts = opts
        self.fetchers: List[ShardFetcher] = [s.shard_fetcher(opts) for s in self.sources]
        self.opened: Dict[Tuple[int, str], ShardRows] = {}

    def close(self) -> None:
        self.opened.clear()
        for fetcher in self.fetchers:
            fetcher.close()

    def schedule(self, upcoming: Sequence[Entry]) -> None:
        """Starts downloading the shards these rows need that are not open yet, first needed first."""
        wanted: Dict[int, Dict[str, ShardEntry]] = {}
        for source, shard, _ in upcoming:
            if (source, shard.shard_id) not in self.opened:
                wanted.setdefault(source, {}).setdefault(shard.shard_id, shard)
        for source, shards in wanted.items():
            self.fetchers[source].schedule(list(shards.values()))

    def read(self, entries: Sequence[Entry], position: Tuple[int, ...], keep: set) -> List[Sample]:
        """The samples of these entries, in their order; then closes the shards not in ``keep``."""
        out: List[Optional[Sample]] = [None] * len(entries)
        by_shard: Dict[Tuple[int, str], List[int]] = {}
        for k, (source, shard, _) in enumerate(entries):
            by_shard.setdefault((source, shard.shard_id), []).append(k)
        for key, ks in by_shard.items():
            source, shard, _ = entries[ks[0]]
            rows = self._open(source, shard).take([entries[k][2] for k in ks], self.opts.attributes)
            for k, row in zip(ks, rows):
                sample = Sample(row)
                sample.position = position + (k,)
                out[k] = sample
        for key in [k for k in self.opened if k not in keep]:
            del self.opened[key]
        return out  # type: ignore[return-value]

    def _open(self, source: int, shard: ShardEntry) -> ShardRows:
        key = (source, shard.shard_id)
        rows = self.opened.get(key)
        if rows is None:
            rows = self.sources[source].open_rows(shard, self.fetchers[source].get(shard))
            self.opened[key] = rows
        return rows


def reader_batches(order: MixedOrder, share: RankShare, batch_size: int, worker: int, num_workers: int,
                   reader: RowReader) -> Iterator[Tuple[int, List[Sample]]]:
    """``(j, samples)`` for each batch ``j`` this worker makes of its rank's share, in order. Each
    sample's ``position`` is (epoch, consumed at the epoch's start, batch j, index in the batch)."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    mine = worker_batches(share.batch_count(batch_size), worker, num_workers)
    # Enough batches ahead to see the shards of the block being read, and the next one's first.
    spread = max(1, share.world_size * batch_size * max(num_workers, 1))
    lookahead = min(_MAX_LOOKAHEAD, 2 + -(-max(order_block(order), 1) // spread))
    pending: Deque[Tuple[int, List[Entry]]] = deque()
    try:
        while True:
            while len(pending) < lookahead:
                j = next(mine, None)
                if j is None:
                    break
                pending.append((j, order.entries(share.batch(j, batch_size))))
            if not pending:
                return
            reader.schedule([e for _, entries in pending for e in entries])
            j, entries = pending.popleft()
            keep = {(s, shard.shard_id) for _, later in pending for s, shard, _ in later}
            yield j, reader.read(entries, (order.epoch, share.consumed, j), keep)
    finally:
        reader.close()


def order_block(order: MixedOrder) -> int:
    return max((s.shuffle_block for s in order.sources), default=0)
