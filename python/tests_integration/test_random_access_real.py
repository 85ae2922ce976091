"""Random access (ds[i], get_many, the map-style PyTorch dataset) on shards the real shard-sink
wrote, with the page indexes it wrote, over ranged GETs to the real S3 server."""

import hashlib
import random
from collections import Counter

import pytest

from conftest import check_values
from shardflow import Dataset, S3Store
from shardflow.errors import PageChecksumError
from shardflow.format.pages import page_index_key, parse_page_index


class DamagingS3Store(S3Store):
    """The real S3 store, with every ranged read that covers ``(key, offset)`` given one flipped byte
    there (as a damaged object would), and the ranges counted."""

    def __init__(self, bucket, settings, damaged=None):
        super().__init__(bucket, settings)
        self.damaged = damaged
        self.ranges = []

    def read_into(self, key, out, start=0):
        self.ranges.append((key, start, len(out)))
        size = super().read_into(key, out, start)
        if self.damaged and key == self.damaged[0] and start <= self.damaged[1] < start + len(out):
            out[self.damaged[1] - start] ^= 0xFF
        return size


def pinned(expected, store=None, **kwargs):
    kwargs.setdefault("cache_dir", False)
    return Dataset(expected["uri"], expected["dataset"], expected["version"], snapshot=expected["snapshotId"],
                   s3=store, **kwargs)


def test_should_find_a_page_index_for_every_shard_the_sink_wrote(dataset):
    for shard in dataset.shards:
        assert shard.page_index_sha256, f"{shard.shard_id} has no page index"
        data = dataset.store.get(page_index_key(shard.object_key))
        index = parse_page_index(data, shard, page_index_key(shard.object_key))
        body = dataset.store.get(shard.object_key)
        assert index.page_size == 65536 and index.shard_sha256 == hashlib.sha256(body).hexdigest()
        assert list(index.pages) == [hashlib.sha256(body[k:k + 65536]).hexdigest() for k in range(0, len(body), 65536)]


def test_should_read_any_sample_by_index_with_the_published_values(expected):
    probe = pinned(expected)
    store = DamagingS3Store(probe.store.bucket, probe.store.settings)
    ds = pinned(expected, store)
    full = [s["sample_id"] for s in ds.samples(shuffle_shards=False, shuffle_block=0)]
    store.ranges.clear()
    picks = random.Random(5).sample(range(len(ds)), 60) + [0, len(ds) - 1, -1]
    for i in picks[:20]:
        s = ds[i]
        assert s["sample_id"] == full[i]
        check_values(expected, s["sample_id"], s["image"], s["label"], s["produced_at"], s["device_id"])
    for i, s in zip(picks, ds.get_many(picks)):
        assert s["sample_id"] == full[i]
        check_values(expected, s["sample_id"], s["image"], s["label"], s["produced_at"], s["device_id"])
    stats = ds.random_access().stats
    assert stats.whole_shards == 0 and stats.pages_verified > 0 and store.ranges, "pages, not whole shards"


def test_should_name_the_damaged_page_of_a_real_shard(expected):
    probe = pinned(expected)
    shard, row = probe.locate(7)
    store = DamagingS3Store(probe.store.bucket, probe.store.settings, damaged=(shard.object_key, 40))
    with pytest.raises(PageChecksumError, match="page 0") as error:
        pinned(expected, store)[7]
    assert error.value.shard_id == shard.shard_id and shard.object_key in str(error.value)


def test_should_serve_every_sample_once_to_a_distributed_sampler_over_2_ranks_x_2_workers(expected):
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, DistributedSampler

    from shardflow.integrations.torch import ShardflowMapDataset

    data = ShardflowMapDataset(pinned(expected))
    seen = Counter()
    for rank in (0, 1):
        sampler = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=True, seed=4)
        for batch in DataLoader(data, batch_size=32, sampler=sampler, num_workers=2):
            assert batch["image"].shape[1:] == (3, 8, 8) and batch["label"].dtype == torch.int64
            for k, sample_id in enumerate(batch["sample_id"]):
                check_values(expected, sample_id, batch["image"][k].numpy(), batch["label"][k],
                             batch["produced_at"][k], batch["device_id"][k])
            seen.update(batch["sample_id"])
    assert seen == Counter(list(expected["samples"]))
