"""What a save needs from the job's ranks: who am I, how many are we, gather to rank 0, and
broadcast from it. :class:`TorchCollective` uses ``torch.distributed`` (any backend: gloo, nccl);
:class:`SingleProcess` is a job of one. Every rank of a job calls ``save`` together, like a
collective: rank 0 writes the manifest once every rank's files are up."""

from __future__ import annotations

from typing import Any, List, Optional


class Collective:
    rank: int = 0
    world_size: int = 1

    def gather(self, value: Any) -> Optional[List[Any]]:
        """Every rank's ``value``, in rank order, on rank 0; None on the others."""
        raise NotImplementedError

    def broadcast(self, value: Any) -> Any:
        """Rank 0's ``value`` on every rank."""
        raise NotImplementedError


class SingleProcess(Collective):
    def gather(self, value):
        return [value]

    def broadcast(self, value):
        return value


class TorchCollective(Collective):
    """Through ``torch.distributed`` (its default process group unless one is given)."""

    def __init__(self, group=None):
        import torch.distributed as dist

        self._dist, self._group = dist, group
        self.rank = dist.get_rank(group)
        self.world_size = dist.get_world_size(group)

    def gather(self, value):
        # all_gather_object: gather_object needs a device set per rank with nccl; the values are small
        out: List[Any] = [None] * self.world_size
        self._dist.all_gather_object(out, value, group=self._group)
        return out if self.rank == 0 else None

    def broadcast(self, value):
        box = [value]
        self._dist.broadcast_object_list(box, src=0, group=self._group)
        return box[0]


def default_collective() -> Collective:
    """``torch.distributed``'s group when torch is imported and a group is initialised, else one process."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None and torch.distributed.is_available() and torch.distributed.is_initialized():
        return TorchCollective()
    return SingleProcess()
