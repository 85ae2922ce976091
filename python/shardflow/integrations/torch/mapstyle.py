"""PyTorch's map-style :class:`ShardflowMapDataset`: sample ``i`` of a pinned snapshot by index,
for any :class:`torch.utils.data.Sampler` (``RandomSampler``, ``DistributedSampler``, weighted or
your own), read with ranged GETs of just the pages it needs (:mod:`shardflow.reading.randomaccess`).

Indices are in snapshot order (see :meth:`shardflow.Dataset.locate`). The snapshot is the one the
dataset is pinned to when the map dataset is made: every DataLoader worker, on every rank, then
reads the same samples for the same index. Where the sampler's order is yours to choose, the
iterable :class:`~shardflow.integrations.torch.ShardflowIterableDataset` reads whole shards in
sequence and is the faster path for plain epochs.
"""

from __future__ import annotations

from typing import Any, List, Sequence

from torch.utils.data import Dataset as TorchDataset

from shardflow.integrations.torch.convert import convert_sample, tensors_to_convert


class ShardflowMapDataset(TorchDataset):
    """``dataset[i]`` of a :class:`shardflow.Dataset` as a map-style PyTorch dataset: a dict of one
    numpy array per tensor plus ``sample_id``, ``device_id``, ``produced_at`` (and ``attributes`` if
    asked for), with the type conversions of the iterable dataset (bfloat16, unsigned, images).

    ``__getitems__`` (a batch of indices, which newer DataLoaders pass at once) fetches the pages
    of the whole batch in parallel. Picklable: each worker opens its own connections and pages.
    """

    def __init__(self, dataset: Any, *, attributes: bool = False, decode_images: bool = True):
        super().__init__()
        self.dataset = dataset
        self.attributes = attributes
        self.decode_images = decode_images
        self._converted = tensors_to_convert(dataset.spec, decode_images)

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, index):
        """Sample ``index``; a list of indices (what a ``BatchSampler`` given as ``sampler`` with
        ``batch_size=None`` passes on torch versions without ``__getitems__``) gives their list."""
        if hasattr(index, "__len__"):
            return self.__getitems__([int(i) for i in index])
        return self.__getitems__([index])[0]

    def __getitems__(self, indices: Sequence[int]) -> List[Any]:
        samples = self.dataset.get_many(indices, self.attributes)
        return [convert_sample(s, self._converted, self.decode_images) for s in samples]

    @property
    def snapshot_id(self) -> int:
        return self.dataset.snapshot_id
