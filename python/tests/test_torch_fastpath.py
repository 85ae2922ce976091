"""PyTorch on the fast path: ShardflowDataLoader's batches made from whole-batch arrays are the
batches the per-sample path collates (any workers), and persistent workers follow set_epoch and
load_state_dict through the loader's shared plan."""

import pytest

torch = pytest.importorskip("torch")

from conftest import assert_same_batch, open_dataset  # noqa: E402

from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset  # noqa: E402


def _batches(built, fast_path, workers, epoch=0, **kwargs):
    data = ShardflowIterableDataset(open_dataset(built), seed=4, shuffle_block=24, fast_path=fast_path, **kwargs)
    data.set_epoch(epoch)
    return list(ShardflowDataLoader(data, batch_size=10, num_workers=workers))


@pytest.mark.parametrize("workers", [0, 2])
def test_should_give_the_per_sample_paths_batches(built, workers):
    fast = _batches(built, True, workers, epoch=1, rank=1, world_size=2)
    slow = _batches(built, False, workers, epoch=1, rank=1, world_size=2)
    assert len(fast) == len(slow) == 8
    for got, want in zip(fast, slow):
        assert_same_batch(got, want)


def test_should_read_each_epoch_with_persistent_workers(built):
    ds = open_dataset(built)
    data = ShardflowIterableDataset(ds, seed=4, shuffle_block=24)
    loader = ShardflowDataLoader(data, batch_size=10, num_workers=2, persistent_workers=True)
    for epoch in (0, 1, 2):
        data.set_epoch(epoch)
        got = [x for batch in loader for x in batch["sample_id"]]
        assert got == [s["sample_id"] for s in ds.samples(seed=4, epoch=epoch, shuffle_block=24)]
    # a resume loaded into the same loader: its persistent workers read the rest of that epoch
    data.set_epoch(1)
    it = iter(loader)
    head = [x for _ in range(3) for x in next(it)["sample_id"]]
    state = loader.state_dict()
    del it
    loader.load_state_dict(state)
    rest = [x for batch in loader for x in batch["sample_id"]]
    assert head + rest == [s["sample_id"] for s in ds.samples(seed=4, epoch=1, shuffle_block=24)]
