"""The PyTorch dataset and loader. Skipped as a whole when torch is not installed: the rest of the
package (and every other test file) runs without it."""

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (Debian: apt-get install python3-torch)")

from torch.utils.data import DataLoader  # noqa: E402

from conftest import SPEC, assert_same_batch, open_dataset  # noqa: E402
from shardflow.integrations.torch import (  # noqa: E402
    ShardflowDataLoader,
    ShardflowIterableDataset,
    merge_states,
    rank_and_world_size,
)
from shardflow.tools.testing import expected_tensor  # noqa: E402


def batch_ids(loader):
    return [i for batch in loader for i in batch["sample_id"]]


def test_should_read_every_sample_exactly_once_across_2_ranks_x_2_dataloader_workers(built):
    ds = open_dataset(built)
    for epoch in (0, 1):
        seen = []
        for rank in (0, 1):
            data = ShardflowIterableDataset(ds, seed=11, shuffle_buffer=8, rank=rank, world_size=2)
            data.set_epoch(epoch)
            seen += batch_ids(DataLoader(data, batch_size=8, num_workers=2))
        assert Counter(seen) == Counter(built.ids), f"epoch {epoch}: some sample missing or repeated"


def test_should_collate_samples_into_tensors_with_the_values_written(built):
    ds = open_dataset(built)
    loader = DataLoader(ShardflowIterableDataset(ds, shuffle_buffer=0), batch_size=16)
    batch = next(iter(loader))
    assert batch["image"].shape == (16, 3, 4, 4) and batch["image"].dtype == torch.float32
    assert batch["label"].shape == (16,) and batch["label"].dtype == torch.int64
    assert batch["valid"].dtype == torch.bool
    assert batch["produced_at"].dtype == torch.int64 and len(batch["sample_id"]) == 16
    for row, sample_id in enumerate(batch["sample_id"]):
        n = int(sample_id[2:])
        for t in SPEC.tensors:
            np.testing.assert_array_equal(batch[t.name][row].numpy(), expected_tensor(t, n))
        assert batch["produced_at"][row] == 1_700_000_000_000 + n
    assert set(batch) == {"image", "label", "valid", "sample_id", "device_id", "produced_at"}


@pytest.mark.parametrize("workers", [0, 2])
def test_should_resume_mid_epoch_with_dataloader_workers_yielding_exactly_the_rest(built, workers):
    ds = open_dataset(built)
    data = ShardflowIterableDataset(ds, seed=4, shuffle_buffer=12, rank=0, world_size=1)
    data.set_epoch(3)
    loader = ShardflowDataLoader(data, batch_size=7, num_workers=workers)
    head = []
    for k, batch in enumerate(loader):
        head += batch["sample_id"]
        if k == 5:
            state = data.state_dict()  # as a training loop would, right after a step
            break
    assert state["epoch"] == 3 and state["total_readers"] == max(1, workers)
    assert sum(state["yielded"].values()) == len(head) == 42

    resumed = ShardflowIterableDataset(open_dataset(built), seed=4, shuffle_buffer=12, rank=0, world_size=1)
    resumed.load_state_dict(state)
    assert resumed.epoch == 3 and resumed.state_dict() == state
    rest = batch_ids(ShardflowDataLoader(resumed, batch_size=7, num_workers=workers))
    assert Counter(head + rest) == Counter(built.ids)
    assert sum(resumed.state_dict()["yielded"].values()) == 151

    resumed.set_epoch(4)  # the next epoch starts from the beginning again
    assert Counter(batch_ids(ShardflowDataLoader(resumed, batch_size=7, num_workers=workers))) == Counter(built.ids)


def test_should_resume_two_ranks_from_their_merged_states(built):
    ds = open_dataset(built)
    heads, states = [], []
    for rank in (0, 1):
        data = ShardflowIterableDataset(ds, seed=8, shuffle_buffer=5, rank=rank, world_size=2)
        for k, batch in enumerate(ShardflowDataLoader(data, batch_size=4, num_workers=2)):
            heads += batch["sample_id"]
            if k == 2 + rank:
                break
        states.append(data.state_dict())
    merged = merge_states(states)
    assert merged["total_readers"] == 4 and len(merged["yielded"]) == 4
    tails = []
    for rank in (0, 1):
        data = ShardflowIterableDataset(open_dataset(built), seed=8, shuffle_buffer=5, rank=rank, world_size=2)
        data.load_state_dict(merged)
        tails += batch_ids(ShardflowDataLoader(data, batch_size=4, num_workers=2))
    assert Counter(heads + tails) == Counter(built.ids)


def test_should_refuse_to_resume_with_another_number_of_readers(built):
    data = ShardflowIterableDataset(open_dataset(built), rank=0, world_size=1)
    next(iter(ShardflowDataLoader(data, batch_size=4, num_workers=2)))
    state = data.state_dict()
    again = ShardflowIterableDataset(open_dataset(built), rank=0, world_size=1)
    again.load_state_dict(state)
    with pytest.raises(ValueError, match="saved with 2 readers"):
        next(iter(ShardflowDataLoader(again, batch_size=4, num_workers=0)))


def test_should_take_rank_and_world_size_from_the_environment(monkeypatch):
    monkeypatch.setenv("RANK", "3")
    monkeypatch.setenv("WORLD_SIZE", "4")
    assert rank_and_world_size() == (3, 4)
    assert rank_and_world_size(rank=1) == (1, 4)
    monkeypatch.delenv("RANK")
    monkeypatch.delenv("WORLD_SIZE")
    assert rank_and_world_size() == (0, 1)
    with pytest.raises(ValueError):
        rank_and_world_size(2, 2)


def test_should_refuse_persistent_workers_which_would_miss_set_epoch(built):
    with pytest.raises(ValueError, match="persistent_workers"):
        ShardflowDataLoader(ShardflowIterableDataset(open_dataset(built)), num_workers=1, persistent_workers=True)


def test_should_follow_new_snapshots_through_a_dataloader(built):
    ds = open_dataset(built)
    data = ShardflowIterableDataset(ds, shuffle_buffer=0, follow=True, poll_interval=0.05, follow_timeout=1.5)
    seen, new = [], []
    for batch in DataLoader(data, batch_size=16, num_workers=2):
        seen += batch["sample_id"]
        if not new:
            new = built.add_snapshot([(0, 10), (1, 10), (2, 10)])
    assert Counter(seen) == Counter(built.ids) and len(new) == 30


def test_should_resume_when_iterated_directly_without_a_dataloader(built):
    data = ShardflowIterableDataset(open_dataset(built), seed=2, shuffle_buffer=9, rank=0, world_size=1)
    it = iter(data)
    head = [next(it)["sample_id"] for _ in range(50)]
    state = data.state_dict()
    assert state["yielded"] == {"0": 50}
    resumed = ShardflowIterableDataset(open_dataset(built), seed=2, shuffle_buffer=9, rank=0, world_size=1)
    resumed.load_state_dict(state)
    assert head + [s["sample_id"] for s in resumed] == [s["sample_id"] for s in data]


def test_should_read_the_snapshot_the_dataset_is_pinned_to_when_an_epoch_starts(built):
    ds = open_dataset(built)
    data = ShardflowIterableDataset(ds, rank=0, world_size=1)
    loader = ShardflowDataLoader(data, batch_size=10, num_workers=2)
    assert len(batch_ids(loader)) == 151
    new = built.add_snapshot([(2, 9)])
    it = iter(loader)
    next(it)
    ds.refresh()  # mid-epoch: this epoch stays on snapshot 4, the state says so
    assert data.state_dict()["snapshot_id"] == 4
    del it
    data.set_epoch(1)
    seen = batch_ids(loader)
    assert Counter(seen) == Counter(built.ids) and set(new) <= set(seen)
    assert data.state_dict()["snapshot_id"] == 5


def test_should_collate_batches_exactly_as_torch_default_collate_does(built):
    from torch.utils.data.dataloader import default_collate

    from shardflow.integrations.torch import collate_samples

    samples = list(open_dataset(built).samples(shuffle_buffer=5, attributes=True))[:16]
    assert_same_batch(collate_samples(samples), default_collate(samples))


def test_should_hand_out_the_same_batches_from_dataloader_workers_with_the_fast_collate(built):
    ds = open_dataset(built)
    data = ShardflowIterableDataset(ds, seed=2, shuffle_buffer=6, rank=0, world_size=1)
    fast = list(ShardflowDataLoader(data, batch_size=8, num_workers=2))
    plain = list(DataLoader(ShardflowIterableDataset(ds, seed=2, shuffle_buffer=6, rank=0, world_size=1),
                            batch_size=8, num_workers=2))
    assert len(fast) == len(plain)
    for a, b in zip(fast, plain):
        assert a["sample_id"] == b["sample_id"]
        for t in SPEC.tensors:
            assert a[t.name].dtype == b[t.name].dtype and torch.equal(a[t.name], b[t.name])
