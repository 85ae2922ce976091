"""Trainer-side access to shardflow datasets."""

from shardflow.shard import Shard, read_shard

__all__ = ["Shard", "read_shard"]
