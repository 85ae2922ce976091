"""ShardflowMapDataset: any torch Sampler, DistributedSampler across ranks with worker processes."""

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import BatchSampler, DataLoader, DistributedSampler, RandomSampler  # noqa: E402

from randomaccess_data import bucket, write  # noqa: E402
from shardflow import Dataset, DirectoryStore  # noqa: E402
from shardflow.integrations.torch import ShardflowMapDataset, ragged_collate  # noqa: E402


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = bucket(tmp_path_factory, "bucket")
    write(path, "v1")
    write(path, "v2", chunk_rows=16, compression="gzip:4")
    return path


def open_ds(root, version):
    return Dataset("s3://tests", "mixed", version, s3=DirectoryStore(root), cache_dir=False)


@pytest.fixture(scope="module")
def by_id(root):
    return {v: {s["sample_id"]: s for s in open_ds(root, v).samples(shuffle_shards=False, shuffle_block=0)}
            for v in ("v1", "v2")}


def check_batch(batch, reference):
    for k, sample_id in enumerate(batch["sample_id"]):
        want = reference[sample_id]
        assert torch.equal(batch["image"][k], torch.from_numpy(want["image"]))
        assert batch["label"][k].item() == int(want["label"])
        assert batch["valid"][k].tolist() == want["valid"].tolist()
        assert batch["caption"][k] == want["caption"] and batch["blob"][k] == want["blob"]
        shape = tuple(batch["boxes_shape"][k].tolist()) if "boxes_shape" in batch else want["boxes"].shape
        assert np.array_equal(batch["boxes"][k][tuple(slice(0, d) for d in shape)].numpy(), want["boxes"])


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_should_serve_every_sample_once_across_ranks_of_a_distributed_sampler(root, by_id, version):
    data = ShardflowMapDataset(open_ds(root, version))
    assert len(data) == 321
    seen = Counter()
    per_rank = []
    for rank in range(3):
        sampler = DistributedSampler(data, num_replicas=3, rank=rank, shuffle=True, seed=11)
        sampler.set_epoch(2)
        loader = DataLoader(data, batch_size=8, sampler=sampler, num_workers=2, collate_fn=ragged_collate)
        count = 0
        for batch in loader:
            check_batch(batch, by_id[version])
            seen.update(batch["sample_id"])
            count += len(batch["sample_id"])
        per_rank.append(count)
    assert per_rank == [107, 107, 107]
    assert set(seen) == set(by_id[version]) and sum(seen.values()) == 321


def test_should_read_a_batch_of_indices_at_once_through_a_batch_sampler(root, by_id):
    data = ShardflowMapDataset(open_ds(root, "v1"))
    batches = BatchSampler(RandomSampler(data, generator=torch.Generator().manual_seed(3)), 16, drop_last=False)
    loader = DataLoader(data, sampler=batches, batch_size=None, num_workers=0,
                        collate_fn=lambda samples: ragged_collate(samples))
    ids = []
    for batch, indices in zip(loader, BatchSampler(RandomSampler(data, generator=torch.Generator().manual_seed(3)), 16,
                                                   drop_last=False)):
        check_batch(batch, by_id["v1"])
        ids += batch["sample_id"]
        assert batch["sample_id"] == [data.dataset.locate(i)[0] and data[i]["sample_id"] for i in indices]
    assert sorted(ids) == sorted(by_id["v1"])
