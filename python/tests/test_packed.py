"""A worker's batch packed into one shared block: the same batch as collate_samples, unpacked as
views, through a real DataLoader with workers (and pinned memory where CUDA is there)."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (Debian: apt-get install python3-torch)")


from conftest import SPEC, assert_same_batch, open_dataset  # noqa: E402
from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset  # noqa: E402
from shardflow.integrations.torch.collate import collate_samples  # noqa: E402
from shardflow.integrations.torch.packed import PackedBatch, pack  # noqa: E402


def test_should_unpack_the_batch_collate_samples_makes_as_views_of_one_block(built):
    samples = list(open_dataset(built).samples(shuffle_block=5))[:16]
    packed = pack(samples)
    assert isinstance(packed, PackedBatch)
    batch = packed.unpack()
    assert_same_batch(batch, collate_samples(samples))
    tensors = [v for v in batch.values() if isinstance(v, torch.Tensor)]
    assert len(tensors) == len(SPEC.tensors) + 1  # every tensor and produced_at
    for t in tensors:
        start = t.data_ptr() - packed.block.data_ptr()
        assert 0 <= start and start + t.numel() * t.element_size() <= packed.block.numel()  # inside the block
        assert start % 64 == 0


def test_should_not_pack_values_it_cannot_place_in_a_block(built):
    samples = list(open_dataset(built).samples(shuffle_block=0, attributes=True))[:4]
    assert pack(samples) is None  # attribute dicts: collate_samples handles them
    ragged = [{"x": np.zeros(2, np.float32)}, {"x": np.zeros(3, np.float32)}]
    assert pack(ragged) is None


@pytest.mark.parametrize("pin", [False, True])
def test_should_hand_out_from_workers_the_batches_collate_samples_makes(built, pin):
    if pin and not torch.cuda.is_available():
        pytest.skip("pin_memory needs CUDA")
    ds = open_dataset(built)

    def data():
        return ShardflowIterableDataset(ds, seed=3, shuffle_block=6, rank=0, world_size=1)

    packed = list(ShardflowDataLoader(data(), batch_size=8, num_workers=2, pin_memory=pin))
    samples = list(ds.samples(seed=3, shuffle_block=6))  # the rank's sequence, batches are its slices
    plain = [collate_samples(samples[i:i + 8]) for i in range(0, len(samples), 8)]
    assert len(packed) == len(plain) > 2
    for batch, want in zip(packed, plain):
        assert not isinstance(batch, PackedBatch)
        assert_same_batch(batch, want)
        if pin:
            assert all(v.is_pinned() for v in batch.values() if isinstance(v, torch.Tensor))
