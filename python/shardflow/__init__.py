"""Trainer-side access to shardflow datasets: versioned HDF5 shards in S3 with a commit log.

``shardflow.Dataset`` pins a snapshot and reads its samples; ``shardflow.torch`` (imported only when
used, so this package works without torch) adds the PyTorch ``IterableDataset``.
"""

from shardflow.cache import ShardCache
from shardflow.dataset import Dataset, SampleIterator
from shardflow.errors import ChecksumError, FormatError, ObjectNotFoundError, ShardflowError, SnapshotNotFoundError
from shardflow.log import CommitLog, ShardEntry, Snapshot, load_snapshot
from shardflow.order import shard_order
from shardflow.shard import Shard, read_shard
from shardflow.spec import DatasetSpec, TensorSpec
from shardflow.store import DirectoryStore, ObjectStore, S3Settings, S3Store
from shardflow.stream import Sample, merge_states

__all__ = [
    "ChecksumError", "CommitLog", "Dataset", "DatasetSpec", "DirectoryStore", "FormatError", "ObjectNotFoundError",
    "ObjectStore", "S3Settings", "S3Store", "Sample", "SampleIterator", "Shard", "ShardCache", "ShardEntry",
    "ShardflowError", "Snapshot", "SnapshotNotFoundError", "TensorSpec", "load_snapshot", "merge_states",
    "read_shard", "shard_order",
]
