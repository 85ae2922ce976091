"""Dropping the saved steps a retention policy does not keep, from inside training (after a save,
say). A dropped step goes in this order: its pointer, its manifest (from here on the step does not
exist for readers), then every object in its folder. Killed half way, what is left is either a
complete step without pointer or files without a manifest, both of which a later prune or
``shardflow ckpt gc`` finishes. Incomplete steps and the losing attempts of kept steps are left to
``shardflow ckpt gc``, which spares objects younger than its safety window (a save may be writing
them right now)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import List

from shardflow.checkpoints import layout
from shardflow.checkpoints.index import CheckpointIndex
from shardflow.checkpoints.retention import RetentionPolicy


@dataclass
class PruneResult:
    kept: List[int] = field(default_factory=list)
    dropped: List[int] = field(default_factory=list)
    deleted_keys: List[str] = field(default_factory=list)


def prune(index: CheckpointIndex, run: str, policy: RetentionPolicy, dry_run: bool = False) -> PruneResult:
    store = index.store
    saved = [m.step for m in index.complete(run)]
    kept = policy.kept(saved, index.pins(run))
    result = PruneResult(kept=sorted(kept), dropped=[s for s in saved if s not in kept])
    for step in result.dropped:
        keys = [layout.pointer_key(run, step), layout.manifest_key(run, step)]
        keys += [k for k in store.list_keys(layout.step_prefix(run, step)) if k != layout.manifest_key(run, step)]
        for key in keys:
            if not dry_run:
                store.delete(key)
            result.deleted_keys.append(key)
    return result
