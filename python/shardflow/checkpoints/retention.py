"""Which saved steps a run keeps (dataset/FORMAT.md, "Training checkpoints", retention): the last
``keep_last``, the first step saved in each window of ``keep_every`` steps (``step // keep_every``:
with saves every 100 steps and ``keep_every=1000``, steps 0, 1000, 2000, ...), every pinned step,
and always the newest. The Java ``CheckpointRetention`` follows the same rule."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Set


@dataclass(frozen=True)
class RetentionPolicy:
    keep_last: int = 3
    keep_every: Optional[int] = None

    def __post_init__(self):
        if not isinstance(self.keep_last, int) or self.keep_last < 1:
            raise ValueError(f"keep_last must be an integer >= 1 (the newest step is always kept), got "
                             f"{self.keep_last!r}")
        if self.keep_every is not None and (not isinstance(self.keep_every, int) or self.keep_every < 1):
            raise ValueError(f"keep_every must be None or an integer >= 1, got {self.keep_every!r}")

    def kept(self, steps: Iterable[int], pinned: Iterable[int] = ()) -> Set[int]:
        ordered = sorted(set(steps))
        kept = set(ordered[-self.keep_last:])
        kept |= set(pinned) & set(ordered)
        if self.keep_every is not None:
            first_in_window = {}
            for step in ordered:
                first_in_window.setdefault(step // self.keep_every, step)
            kept |= set(first_in_window.values())
        return kept
