"""Trainer-side access to shardflow datasets: versioned HDF5 shards in S3 with a commit log.

``shardflow.Dataset`` pins a snapshot and reads its samples, ``shardflow.Mix`` reads several in exact
proportions (docs/READING-RULES.md); ``shardflow.integrations.torch`` (imported only when used, so
this package works without torch) adds the PyTorch ``IterableDataset`` and ``DataLoader``.
"""

from shardflow.errors import ChecksumError, FormatError, ObjectNotFoundError, ShardflowError, SnapshotNotFoundError
from shardflow.format.shard import Shard, read_shard
from shardflow.format.spec import DatasetSpec, TensorSpec
from shardflow.reading.cache import ShardCache
from shardflow.reading.dataset import Dataset, SampleIterator
from shardflow.reading.log import CommitLog, ShardEntry, Snapshot, load_snapshot
from shardflow.reading.mixing import Mix
from shardflow.reading.order import shard_order
from shardflow.reading.resume import merge_states
from shardflow.reading.sample import Sample
from shardflow.storage.store import DirectoryStore, ObjectStore, S3Settings, S3Store

__all__ = [
    "ChecksumError", "CommitLog", "Dataset", "DatasetSpec", "DirectoryStore", "FormatError", "Mix",
    "ObjectNotFoundError", "ObjectStore", "S3Settings", "S3Store", "Sample", "SampleIterator", "Shard", "ShardCache",
    "ShardEntry", "ShardflowError", "Snapshot", "SnapshotNotFoundError", "TensorSpec", "load_snapshot",
    "merge_states", "read_shard", "shard_order",
]
