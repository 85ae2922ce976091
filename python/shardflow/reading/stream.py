"""The sample stream of one reader: its shards in deterministic order, a seeded shuffle buffer,
mid-epoch resume by deterministic replay, and following the log for new snapshots.

Reader ``g`` of ``total`` reads, for (seed, epoch):

1. segment 0: the pinned snapshot's shards in :func:`~shardflow.reading.order.shard_order`, those at
   positions ``i % total == g``;
2. with ``follow``: one segment per newly committed snapshot ``s = pinned+1, pinned+2, ...``: the
   shards entry ``s`` added, in the same hash order, positions continuing where the previous
   segment stopped (so new shards are spread over all readers, whatever the poll timing).

Rows go through the shuffle buffer in file order; the buffer is emptied at the end of every
segment. Every call the stream makes depends only on (seed, epoch, g, total) and the log, never on
timing, so it can be replayed: resuming after ``n`` samples replays the first ``n`` with stand-ins
(shard, row) instead of data, downloading nothing for them, then continues with real samples.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from shardflow.format.shard import Shard
from shardflow.reading.fetch import ShardFetcher
from shardflow.reading.log import CommitLog, ShardEntry, Snapshot
from shardflow.reading.options import StreamOptions
from shardflow.reading.order import ShuffleBuffer, sample_rng, shard_order, split
from shardflow.reading.resume import STATE_FORMAT, ResumePoint, make_state, merge_states, parse_state

__all__ = ["METADATA_KEYS", "STATE_FORMAT", "ResumePoint", "Sample", "ShardSource", "StreamOptions", "make_state",
           "merge_states", "parse_state", "segments", "worker_samples"]

METADATA_KEYS = ("sample_id", "device_id", "produced_at", "attributes")


class Sample(dict):
    """One sample: ``{tensor name: numpy array, ..., "sample_id": str, "device_id": str,
    "produced_at": int}`` (plus ``"attributes"`` if asked for). ``position`` is (reader g, readers
    total, index in g's stream), which resume bookkeeping uses; it is not a key, so it never reaches
    a batch."""

    __slots__ = ("position",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.position: Optional[Tuple[int, int, int]] = None

    def __reduce__(self):
        return (_make_sample, (dict(self), self.position))


def _make_sample(data, position):
    s = Sample(data)
    s.position = position
    return s


def segments(log: CommitLog, snapshot: Snapshot, opts: StreamOptions, g: int, total: int,
             clock: Callable[[], float] = time.monotonic,
             sleep: Callable[[float], None] = time.sleep) -> Iterator[List[ShardEntry]]:
    """Reader ``g``'s shards, one list per segment (see the module doc)."""
    ordered = shard_order(snapshot.shards, opts.seed, opts.epoch, opts.shuffle_shards)
    yield split(ordered, g, total)
    if not opts.follow:
        return
    position = len(ordered)
    next_id = snapshot.snapshot_id + 1
    last_news = clock()
    while True:
        added = log.added_by(next_id)
        if added is None:
            waited = clock() - last_news
            if opts.follow_timeout is not None and waited >= opts.follow_timeout:
                return
            left = None if opts.follow_timeout is None else opts.follow_timeout - waited
            sleep(opts.poll_interval if left is None else max(0.0, min(opts.poll_interval, left)))
            continue
        last_news = clock()
        ordered = shard_order(added, opts.seed, opts.epoch, opts.shuffle_shards)
        yield split(ordered, g, total, offset=position)
        position += len(ordered)
        next_id += 1


class ShardSource:
    """What the stream needs from a dataset: a fetcher of verified shard bytes, and decoding them."""

    def shard_fetcher(self, opts: StreamOptions) -> ShardFetcher:
        raise NotImplementedError

    def decode_shard(self, shard: ShardEntry, data: bytearray, attributes: bool) -> Shard:
        raise NotImplementedError


def worker_samples(source: ShardSource, segs: Iterator[List[ShardEntry]], opts: StreamOptions, g: int, total: int,
                   skip: int = 0) -> Iterator[Sample]:
    """Reader ``g``'s samples, without the first ``skip`` of them. Each sample's ``position`` is
    ``(g, total, index)``, index counting from 0 at the start of the epoch (so the first is ``skip``)."""
    buffer: ShuffleBuffer = ShuffleBuffer(opts.shuffle_buffer, sample_rng(opts.seed, opts.epoch, g))
    emitted = 0
    skipping = skip > 0
    # Made here, in the process that iterates: a DataLoader worker gets its own threads and S3 client.
    fetcher = source.shard_fetcher(opts)

    def load(shard: ShardEntry) -> Shard:
        return source.decode_shard(shard, fetcher.get(shard), opts.attributes)

    def materialize(items: List[Any]) -> List[Any]:
        loaded: Dict[str, Shard] = {}
        out = []
        for item in items:
            if isinstance(item, tuple):
                shard, row = item
                if shard.shard_id not in loaded:
                    loaded[shard.shard_id] = load(shard)
                item = _sample(loaded[shard.shard_id], row)
            out.append(item)
        return out

    try:
        for seg in segs:
            for k, shard in enumerate(seg):
                if skipping and buffer.size == 0 and emitted + shard.sample_count <= skip:
                    emitted += shard.sample_count  # a whole shard before the resume point: not even read
                    skipping = emitted < skip
                    continue
                if not skipping:
                    fetcher.schedule(seg[k:k + 1 + opts.prefetch])
                    for item in _samples(load(shard)):
                        out = buffer.push(item)
                        if out is not None:
                            out.position = (g, total, emitted)
                            emitted += 1
                            yield out
                    continue
                rows: Optional[Shard] = None
                for r in range(shard.sample_count):
                    if skipping:
                        item: Any = (shard, r)
                    else:
                        if rows is None:
                            fetcher.schedule(seg[k:k + 1 + opts.prefetch])
                            rows = load(shard)
                        item = _sample(rows, r)
                    out = buffer.push(item)
                    if out is None:
                        continue
                    if skipping:
                        emitted += 1
                        if emitted == skip:
                            skipping = False
                            buffer.replace(materialize)
                    else:
                        out.position = (g, total, emitted)
                        emitted += 1
                        yield out
            for out in buffer.drain():
                if skipping:
                    emitted += 1
                    if emitted == skip:
                        skipping = False
                        buffer.replace(materialize)
                else:
                    out.position = (g, total, emitted)
                    emitted += 1
                    yield out
    finally:
        fetcher.close()


def _row_views(values) -> list:
    """One view per row; 0-d arrays (not numpy scalars) for scalar tensors, as ``values[row]`` is not.
    Variable rows (strings, bytes, free shapes) are already a list of their own objects."""
    if isinstance(values, list):
        return values
    if values.ndim == 1:
        return [values[r, ...] for r in range(len(values))]
    return list(values)  # row views, made in C


def _samples(shard: Shard) -> Iterator[Sample]:
    """Every row of ``shard`` in file order, as :func:`_sample` makes them, with the per-row work
    done column by column beforehand (the per-sample loop is what bounds a reader's speed)."""
    keys = list(shard.tensors) + ["sample_id", "device_id", "produced_at"]
    columns = [_row_views(values) for values in shard.tensors.values()]
    columns += [shard.sample_ids, shard.device_ids, shard.produced_at.tolist()]
    if shard.attributes:
        keys.append("attributes")
        columns.append(shard.attributes)
    for row in zip(*columns):
        yield Sample(zip(keys, row))


def _sample(shard: Shard, row: int) -> Sample:
    s = Sample()
    for name, values in shard.tensors.items():
        if isinstance(values, list):  # variable rows: each already its own object
            s[name] = values[row]
        else:
            # A view into the shard's buffer, not a copy: the buffer lives as long as one of its samples.
            s[name] = values[row, ...]
    s["sample_id"] = shard.sample_ids[row]
    s["device_id"] = shard.device_ids[row]
    s["produced_at"] = int(shard.produced_at[row])
    if shard.attributes:
        s["attributes"] = shard.attributes[row]
    return s
