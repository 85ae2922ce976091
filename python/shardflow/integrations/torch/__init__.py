"""PyTorch access: :class:`ShardflowIterableDataset` and :class:`ShardflowDataLoader`, the map-style
:class:`ShardflowMapDataset` (for any Sampler), and the collate functions they use. Importing this
package imports torch; ``import shardflow`` alone does not."""

from shardflow.integrations.torch.collate import collate_samples, ragged_collate
from shardflow.integrations.torch.datasets import ShardflowIterableDataset, rank_and_world_size
from shardflow.integrations.torch.loader import ShardflowDataLoader
from shardflow.integrations.torch.mapstyle import ShardflowMapDataset
from shardflow.reading.resume import merge_states

__all__ = ["ShardflowIterableDataset", "ShardflowDataLoader", "ShardflowMapDataset", "collate_samples", "merge_states",
           "rank_and_world_size", "ragged_collate"]
