"""Mid-epoch resume state of sample streams: made, checked against a reader, and merged across ranks.

Each reader's stream is a pure function of (seed, epoch, reader g, readers total) and the log, so a
state only records how many samples each reader had handed out; resuming replays the stream and
skips them (see :mod:`shardflow.reading.stream`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional, Sequence

from shardflow.reading.options import StreamOptions

STATE_FORMAT = "shardflow.sample-stream/1"


def make_state(dataset: str, version: str, snapshot_id: int, opts: StreamOptions, total: Optional[int],
               yielded: Mapping[int, int]) -> Dict[str, Any]:
    """The resume state: enough to replay every reader's stream and skip what it already yielded.

    ``yielded[g]`` is how many samples reader ``g`` of ``total`` had handed out (to the trainer) in
    ``epoch``; a reader that is not listed had handed out none.
    """
    return {
        "format": STATE_FORMAT, "dataset": dataset, "version": version, "snapshot_id": snapshot_id,
        "seed": opts.seed, "epoch": opts.epoch, "shuffle_shards": opts.shuffle_shards,
        "shuffle_buffer": opts.shuffle_buffer, "total_readers": total,
        "yielded": {str(g): int(n) for g, n in sorted(yielded.items())},
    }


@dataclass(frozen=True)
class ResumePoint:
    snapshot_id: int
    epoch: int
    total: Optional[int]
    yielded: Dict[int, int]

    def skip_for(self, g: int, total: int) -> int:
        if self.yielded and self.total != total:
            raise ValueError(f"the resume state was saved with {self.total} readers (ranks x DataLoader workers) "
                             f"and is now read with {total}: resume with the same world_size * num_workers")
        return self.yielded.get(g, 0)


def parse_state(state: Mapping[str, Any], dataset: str, version: str, opts: StreamOptions) -> ResumePoint:
    """Checks a resume state against the dataset and the options that shape the stream."""
    if state.get("format") != STATE_FORMAT:
        raise ValueError(f"not a shardflow resume state (format {state.get('format')!r}, expected {STATE_FORMAT!r})")
    if (state["dataset"], state["version"]) != (dataset, version):
        raise ValueError(f"the resume state is for {state['dataset']}/{state['version']}, not {dataset}/{version}")
    for name in ("seed", "shuffle_shards", "shuffle_buffer"):
        if state[name] != getattr(opts, name):
            raise ValueError(f"the resume state was saved with {name}={state[name]!r} but this reader has "
                             f"{name}={getattr(opts, name)!r}; the replayed order would differ")
    yielded = {int(g): int(n) for g, n in state["yielded"].items()}
    return ResumePoint(int(state["snapshot_id"]), int(state["epoch"]), state.get("total_readers"), yielded)


def merge_states(states: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
    """One state from the states of several ranks of the same run (each knows its own readers)."""
    if not states:
        raise ValueError("no states to merge")
    merged = dict(states[0])
    yielded: Dict[str, int] = {}
    for state in states:
        for key in ("format", "dataset", "version", "snapshot_id", "seed", "epoch", "shuffle_shards",
                    "shuffle_buffer"):
            if state[key] != merged[key]:
                raise ValueError(f"cannot merge resume states with different {key}: {merged[key]!r} and {state[key]!r}")
        if state.get("total_readers") is not None:
            if merged.get("total_readers") not in (None, state["total_readers"]):
                raise ValueError(f"cannot merge resume states of {merged['total_readers']} and "
                                 f"{state['total_readers']} readers")
            merged["total_readers"] = state["total_readers"]
        for g, n in state["yielded"].items():
            yielded[str(g)] = max(yielded.get(str(g), 0), int(n))
    merged["yielded"] = dict(sorted(yielded.items(), key=lambda kv: int(kv[0])))
    return merged
