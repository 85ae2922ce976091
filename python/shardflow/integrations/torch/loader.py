"""PyTorch's :class:`ShardflowDataLoader`: a DataLoader whose workers make whole batches of the
rank's share, in order, and which knows how many it has delivered (its own ``state_dict()``)."""

from __future__ import annotations

from typing import Any, Callable, Dict, Mapping, Optional

from torch.utils.data import DataLoader

from shardflow.integrations.torch.collate import ragged_collate
from shardflow.integrations.torch.datasets import ShardflowIterableDataset
from shardflow.integrations.torch.packed import PackedBatch, pack_samples
from shardflow.integrations.torch.sharedplan import SharedPlan


class _RaggedCollate:
    def __init__(self, ragged: str):
        self.ragged = ragged

    def __call__(self, samples):
        return ragged_collate(samples, self.ragged)


def _fast_or_pack(batch):
    """A fast-path batch (already a dict of tensors, or a PackedBatch from a worker) as it is; a
    list of samples packed (:func:`~shardflow.integrations.torch.packed.pack_samples`)."""
    return batch if isinstance(batch, (dict, PackedBatch)) else pack_samples(batch)


class ShardflowDataLoader(DataLoader):
    """A DataLoader over a :class:`ShardflowIterableDataset` that delivers the rank's batches
    ``0, 1, 2, ...`` of ``batch_size`` samples (the last one of an epoch may be shorter, by the
    same amount on every rank), with any ``num_workers``: worker ``w`` makes batches ``j % W == w``
    and the DataLoader takes them round robin. Every rank gets the same number of batches.

    ``state_dict()`` (the loader's or the dataset's: the same) after ``k`` batches says the job has
    consumed the first ``world_size * k * batch_size`` samples of the epoch's remainder; a job
    resumed from it with any world size and ``num_workers`` reads exactly the rest.

    Batches are what ``collate_fn`` makes of each batch's samples; by default
    :func:`~shardflow.integrations.torch.collate.collate_samples` (torch's default collate, numpy
    tensors stacked with one copy; from a worker, the batch's tensors in one shared-memory block,
    :mod:`shardflow.integrations.torch.packed`), or, when the spec has string, bytes, image or
    free-shape tensors, :func:`~shardflow.integrations.torch.collate.ragged_collate` with
    ``ragged`` = ``"pad"`` (zero-padded, true shapes under ``<name>_shape``) or ``"list"``.
    With ``persistent_workers=True`` the workers outlive each epoch; the epoch the loader begins
    (after ``set_epoch`` or ``load_state_dict``) reaches them through a small shared-memory block
    holding its resume state, from which each worker rebuilds the plan (O(1), no listing).
    """

    def __init__(self, dataset: ShardflowIterableDataset, batch_size: int = 1, *,
                 collate_fn: Optional[Callable] = None, ragged: str = "pad", **kwargs):
        if not isinstance(dataset, ShardflowIterableDataset):
            raise TypeError(f"ShardflowDataLoader reads a ShardflowIterableDataset, not {type(dataset).__name__}")
        if kwargs.get("persistent_workers"):
            dataset._shared_plan = SharedPlan()
        for name in ("sampler", "batch_sampler", "shuffle", "drop_last"):
            if kwargs.get(name):
                raise ValueError(f"{name} does not apply: order, split and drop_last are the dataset's "
                                 f"(ShardflowIterableDataset(seed=, shuffle_block=, drop_last=))")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
        if ragged not in ("pad", "list"):
            raise ValueError(f"ragged must be 'pad' or 'list', not {ragged!r}")
        if collate_fn is None:
            variable = any(t.variable for t in dataset.spec.tensors)
            # pack_samples: collate_samples' batch, in a worker one shared block instead of one per tensor
            collate_fn = _RaggedCollate(ragged) if variable else _fast_or_pack
        dataset.batch_size = batch_size
        self.shardflow_batch_size = batch_size
        # The dataset yields whole batches: the DataLoader only collates each one (batch_size=None).
        super().__init__(dataset, batch_size=None, collate_fn=collate_fn, **kwargs)

    def __iter__(self):
        dataset: ShardflowIterableDataset = self.dataset
        dataset.batch_size = self.shardflow_batch_size
        dataset._plan = dataset.begin()  # pinned here, once; the workers take a copy as they start
        if dataset._shared_plan is not None:  # persistent workers read it at each epoch's start
            dataset._shared_plan.write(dataset._plan.state_at(dataset._plan.state.consumed))
        try:
            iterator = super().__iter__()
        finally:
            dataset._plan = None
        delivered = 0
        for batch in iterator:
            delivered += 1
            dataset.reader.delivered(delivered)
            yield batch.unpack() if isinstance(batch, PackedBatch) else batch

    def state_dict(self) -> Dict[str, Any]:
        """The dataset's :meth:`~ShardflowIterableDataset.state_dict` (batches delivered by this loader)."""
        return self.dataset.state_dict()

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        self.dataset.load_state_dict(state, allow_snapshot_change)
