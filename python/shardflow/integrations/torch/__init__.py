"""PyTorch access: :class:`ShardflowIterableDataset` and :class:`ShardflowDataLoader`, and the
collate functions they use. Importing this package imports torch; ``import shardflow`` alone does not."""

from shardflow.integrations.torch.collate import collate_samples, ragged_collate
from shardflow.integrations.torch.datasets import (
                                                   ShardflowDataLoader,
                                                   ShardflowIterableDataset,
                                                   merge_states,
                                                   rank_and_world_size,
)

__all__ = ["ShardflowIterableDataset", "ShardflowDataLoader", "collate_samples", "merge_states", "rank_and_world_size",
           "ragged_collate"]
