"""What one epoch of a read is: the datasets pinned, what each gives, the order, and where it starts.

A read is one dataset or a :class:`~shardflow.reading.mixing.Mix` of several. :func:`start_epoch`
pins each dataset's current snapshot (with ``new_only``, just the shards appended since the previous
epoch's snapshot); :func:`resume_epoch` pins exactly what a resume state names, so the rest of that
epoch is read from the same order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence

from shardflow.reading.mix import MixedOrder, MixSource
from shardflow.reading.options import StreamOptions
from shardflow.reading.resume import ReadState, SourcePin
from shardflow.reading.split import RankShare


class _One:
    """One dataset, read whole each epoch: a read of one source."""

    def __init__(self, dataset: Any):
        self.datasets = [dataset]

    def counts_for(self, sizes: Sequence[int]) -> List[int]:
        return list(sizes)


@dataclass
class EpochPlan:
    datasets: List[Any]
    state: ReadState
    order: MixedOrder

    def share(self, rank: int, world_size: int) -> RankShare:
        return RankShare(self.state.samples, self.state.consumed, rank, world_size, self.state.drop_last)

    def state_at(self, consumed: int) -> Dict[str, Any]:
        return replace(self.state, consumed=consumed).to_json()


def as_mix(read: Any) -> Any:
    """A read as its sources: a :class:`~shardflow.reading.mixing.Mix` is one already (it has
    ``datasets`` and ``counts_for``); a dataset is one source read whole."""
    return read if hasattr(read, "counts_for") else _One(read)


def _shards(dataset, snapshot_id: int, since: Optional[int]) -> tuple:
    """The snapshot's shards; with ``since``, those that appends after ``since`` added (rewrites by
    compaction or deletion hold rows read before, and are left out)."""
    snapshot = dataset.snapshot if dataset.snapshot_id == snapshot_id else dataset.log.snapshot(snapshot_id)
    if since is None:
        return snapshot.shards
    return tuple(s for s in snapshot.shards if s.snapshot_id > since and s.snapshot_id not in snapshot.non_append_ids)


def _plan(datasets, pins_wo_counts: List[SourcePin], mix: Any, opts: StreamOptions, epoch: int,
          consumed: Optional[int]) -> EpochPlan:
    sources = [MixSource(_shards(d, p.snapshot_id, p.since_snapshot), p.shuffle_shards, p.shuffle_block)
               for d, p in zip(datasets, pins_wo_counts)]
    counts = mix.counts_for([s.size for s in sources])
    pins = tuple(replace(p, count=n) for p, n in zip(pins_wo_counts, counts))
    size = sum(counts)
    state = ReadState(opts.seed, epoch, opts.drop_last, size, min(size, consumed or 0), pins)
    return EpochPlan(list(datasets), state, MixedOrder(sources, counts, opts.seed, epoch))


def start_epoch(read: Any, opts: StreamOptions, since: Optional[Sequence[Optional[int]]] = None
                ) -> EpochPlan:
    """Epoch ``opts.epoch`` from its start, on each dataset's pinned snapshot; ``since`` (with
    ``new_only``) the snapshots the previous epoch read."""
    mix = as_mix(read)
    since = list(since) if since is not None and opts.new_only else [None] * len(mix.datasets)
    pins = [SourcePin(d.name, d.version, d.snapshot_id, s, opts.shuffle_shards, opts.shuffle_block, 0)
            for d, s in zip(mix.datasets, since)]
    return _plan(mix.datasets, pins, mix, opts, opts.epoch, 0)


def check_pins(read: Any, state: ReadState, allow_snapshot_change: bool) -> None:
    """A dataset its caller opened at another snapshot than the state's is refused, unless allowed."""
    for d, pin in zip(as_mix(read).datasets, state.sources):
        if d.snapshot_id != pin.snapshot_id and getattr(d, "pinned_by_caller", False) and not allow_snapshot_change:
            raise ValueError(f"the resume state is for {d.name}/{d.version} snapshot {pin.snapshot_id}, and this "
                             f"dataset was opened at snapshot {d.snapshot_id}: open it without snapshot= (the state "
                             f"pins its own) or pass allow_snapshot_change=True to go on over another order")


def resume_epoch(read: Any, opts: StreamOptions, state: ReadState,
                 allow_snapshot_change: bool = False) -> EpochPlan:
    """The rest of the epoch a state was saved in, on exactly the snapshots it names. A dataset
    pinned by its caller to another snapshot is refused unless ``allow_snapshot_change``: then the
    epoch goes on over that snapshot's order from the same count (not exact: another order)."""
    mix = as_mix(read)
    state.check_settings(opts.seed, [(d.name, d.version, opts.shuffle_shards, opts.shuffle_block)
                                     for d in mix.datasets])
    check_pins(mix, state, allow_snapshot_change)
    datasets = []
    for d, pin in zip(mix.datasets, state.sources):
        if d.snapshot_id == pin.snapshot_id or allow_snapshot_change:
            datasets.append(d)
        else:
            datasets.append(d.at(pin.snapshot_id))  # the order needs exactly that snapshot
    pins = [replace(p, snapshot_id=d.snapshot_id) for d, p in zip(datasets, state.sources)]
    plan = _plan(datasets, pins, mix, replace(opts, drop_last=state.drop_last), state.epoch, state.consumed)
    if plan.state.samples != state.samples and not allow_snapshot_change:
        raise ValueError(f"the resume state's epoch has {state.samples} samples, its snapshots now give "
                         f"{plan.state.samples}: the state does not belong to this data")
    return plan
