"""The resume state: where a job is in an epoch, whatever its ranks and workers (READING-RULES.md,
"Resume state"). JSON-safe and small: one count of consumed positions, plus what pins the order.

Every rank of a job in lockstep computes the same state, so any rank's state resumes the whole
job, on any number of ranks and workers: the remainder ``[consumed, samples)`` is split afresh.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

STATE_FORMAT = "shardflow.read-state/2"
_SOURCE_KEYS = ("dataset", "version", "snapshot_id", "since_snapshot", "shuffle_shards", "shuffle_block", "count")


@dataclass(frozen=True)
class SourcePin:
    """One dataset version of the read (one source of a mix): its snapshot, and what it gives an epoch."""

    dataset: str
    version: str
    snapshot_id: int
    since_snapshot: Optional[int]
    """``new_only``: the epoch reads the shards of ``snapshot_id`` that ``since_snapshot`` lacks."""
    shuffle_shards: bool
    shuffle_block: int
    count: int
    """Samples this source gives each epoch."""


@dataclass(frozen=True)
class ReadState:
    seed: int
    epoch: int
    drop_last: bool
    samples: int
    """The epoch's length S (for a mix, T: the sum of the counts)."""
    consumed: int
    """C: positions ``[0, C)`` of the epoch order have been delivered (by all ranks together)."""
    sources: Tuple[SourcePin, ...]

    def to_json(self) -> Dict[str, Any]:
        out = {"format": STATE_FORMAT, **{k: v for k, v in asdict(self).items() if k != "sources"}}
        out["sources"] = [asdict(s) for s in self.sources]
        return out

    @staticmethod
    def from_json(state: Mapping[str, Any]) -> "ReadState":
        if not isinstance(state, Mapping) or state.get("format") != STATE_FORMAT:
            found = state.get("format") if isinstance(state, Mapping) else type(state).__name__
            raise ValueError(f"not a shardflow resume state (format {found!r}, expected {STATE_FORMAT!r}); "
                             f"states of the per-reader format shardflow.sample-stream/1 cannot be resumed exactly")
        try:
            sources = tuple(SourcePin(**{k: s[k] for k in _SOURCE_KEYS}) for s in state["sources"])
            parsed = ReadState(int(state["seed"]), int(state["epoch"]), bool(state["drop_last"]),
                               int(state["samples"]), int(state["consumed"]), sources)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"a damaged resume state: {e!r}") from None
        if not 0 <= parsed.consumed <= parsed.samples or not sources:
            raise ValueError(f"a damaged resume state: {parsed.consumed} consumed of {parsed.samples}")
        return parsed

    @property
    def done(self) -> bool:
        return self.consumed >= self.samples

    def check_settings(self, seed: int, sources: Sequence[Tuple[str, str, bool, int]]) -> None:
        """Refuses a state made for other data or settings (the order would differ)."""
        mine = [(s.dataset, s.version, s.shuffle_shards, s.shuffle_block) for s in self.sources]
        if [m[:2] for m in mine] != [tuple(s[:2]) for s in sources]:
            raise ValueError(f"the resume state is for {[f'{d}/{v}' for d, v, *_ in mine]}, not "
                             f"{[f'{d}/{v}' for d, v, *_ in sources]}")
        if self.seed != seed:
            raise ValueError(f"the resume state was saved with seed={self.seed} but this reader has seed={seed}; "
                             f"the order would differ")
        for m, s in zip(mine, sources):
            if m[2:] != tuple(s[2:]):
                raise ValueError(f"the resume state was saved with shuffle_shards={m[2]}, shuffle_block={m[3]} for "
                                 f"{m[0]}/{m[1]} but this reader has shuffle_shards={s[2]}, shuffle_block={s[3]}")


def merge_states(states: Sequence[Mapping[str, Any]], uneven: str = "error") -> Dict[str, Any]:
    """One state from the states of the ranks of one job. Ranks in lockstep (DDP) have the same
    state, and that is the result. Ranks that delivered different numbers of batches: ``uneven=
    "error"`` (default) refuses; ``"repeat"`` keeps the smallest consumed count, so the samples the
    faster ranks had delivered beyond it are read again after the resume (none is lost)."""
    if not states:
        raise ValueError("no states to merge")
    if uneven not in ("error", "repeat"):
        raise ValueError(f"uneven must be 'error' or 'repeat', not {uneven!r}")
    parsed: List[ReadState] = [ReadState.from_json(s) for s in states]
    first = parsed[0]
    for other in parsed[1:]:
        if replace(other, consumed=first.consumed) != first:
            raise ValueError(f"cannot merge resume states of different reads: {first.to_json()} and {other.to_json()}")
    consumed = sorted({s.consumed for s in parsed})
    if len(consumed) > 1 and uneven == "error":
        raise ValueError(f"the ranks were not in lockstep: their states consumed {consumed} samples of epoch "
                         f"{first.epoch}. merge_states(states, uneven='repeat') resumes from the smallest "
                         f"({consumed[0]}): the samples the others delivered beyond it come again")
    return replace(first, consumed=consumed[0]).to_json()
