"""The PyTorch dataset and loader. Skipped as a whole when torch is not installed: the rest of the
package (and every other test file) runs without it."""

from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (Debian: apt-get install python3-torch)")

from torch.utils.data import DataLoader, IterableDataset, get_worker_info  # noqa: E402

from conftest import SPEC, assert_same_batch, open_dataset  # noqa: E402
from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset, rank_and_world_size  # noqa: E402
from shardflow.reading.split import worker_batches  # noqa: E402
from shardflow.tools.testing import expected_tensor  # noqa: E402


def batch_ids(loader):
    return [i for batch in loader for i in batch["sample_id"]]


def rank_loader(ds, rank, world_size, workers, batch_size=8, **kwargs):
    kwargs.setdefault("seed", 11)
    kwargs.setdefault("shuffle_block", 24)
    data = ShardflowIterableDataset(ds, rank=rank, world_size=world_size, **kwargs)
    return data, ShardflowDataLoader(data, batch_size=batch_size, num_workers=workers)


class _WorkerBatches(IterableDataset):
    """Worker w yields (w, j) for its batches j % W == w: what ShardflowIterableDataset does."""

    def __init__(self, batches):
        self.batches = batches

    def __iter__(self):
        info = get_worker_info()
        for j in worker_batches(self.batches, info.id, info.num_workers):
            yield torch.tensor([info.id, j])


@pytest.mark.parametrize("workers,batches", [(1, 5), (2, 7), (3, 3), (3, 10), (4, 2), (5, 0)])
def test_should_get_the_workers_batches_from_a_dataloader_round_robin_in_order(workers, batches):
    got = [tuple(t.tolist()) for t in DataLoader(_WorkerBatches(batches), batch_size=None, num_workers=workers)]
    assert [j for _, j in got] == list(range(batches)), "in order, exhausted workers skipped"
    assert all(w == j % workers for w, j in got)


@pytest.mark.parametrize("workers", [0, 1, 3])
def test_should_hand_out_each_rank_its_sequence_in_batches_whatever_the_workers(built, workers):
    ds = open_dataset(built)
    sequences = []
    for rank in range(3):
        data, loader = rank_loader(ds, rank, 3, workers, batch_size=7)
        got = batch_ids(loader)
        assert got == [s["sample_id"] for s in ds.samples(seed=11, shuffle_block=24, rank=rank, world_size=3)]
        assert data.state_dict()["consumed"] == 151
        sequences.append(got)
    assert [len(s) for s in sequences] == [51, 51, 51] and set(i for s in sequences for i in s) == set(built.ids)


def test_should_collate_samples_into_tensors_with_the_values_written(built):
    loader = ShardflowDataLoader(ShardflowIterableDataset(open_dataset(built), shuffle_block=0), batch_size=16)
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


@pytest.mark.parametrize("before,after", [((2, 2), (3, 1)), ((3, 0), (1, 2)), ((1, 3), (2, 0))])
def test_should_resume_the_loaders_state_on_other_ranks_and_workers_with_exactly_the_rest(built, before, after):
    ds = open_dataset(built)
    (ranks, workers), heads, states = before, [], []
    for rank in range(ranks):
        data, loader = rank_loader(ds, rank, ranks, workers, batch_size=5)
        for k, batch in enumerate(loader):
            heads += batch["sample_id"]
            if k == 3:
                break
        assert loader.state_dict() == data.state_dict(), "the loader's state is the dataset's"
        states.append(loader.state_dict())
    assert all(s == states[0] for s in states) and states[0]["consumed"] == ranks * 4 * 5
    (ranks, workers), tails = after, []
    for rank in range(ranks):
        data, loader = rank_loader(open_dataset(built), rank, ranks, workers, batch_size=5)
        loader.load_state_dict(states[0])
        assert data.epoch == 0 and data.state_dict() == states[0]
        tails.append(batch_ids(loader))
    assert len({len(t) for t in tails}) == 1
    everything = Counter(heads + [i for t in tails for i in t])
    assert set(everything) == set(built.ids)
    padding = ranks * len(tails[0]) - (151 - states[0]["consumed"])
    assert sum(everything.values()) == 151 + padding


def test_should_read_the_next_epoch_whole_after_a_resumed_one(built):
    data, loader = rank_loader(open_dataset(built), 0, 1, 2, batch_size=10)
    data.set_epoch(3)
    it = iter(loader)
    head = next(it)["sample_id"]
    state = loader.state_dict()
    del it
    data2, loader2 = rank_loader(open_dataset(built), 0, 1, 2, batch_size=10)
    loader2.load_state_dict(state)
    assert data2.epoch == 3 and Counter(head + batch_ids(loader2)) == Counter(built.ids)
    data2.set_epoch(4)
    assert Counter(batch_ids(loader2)) == Counter(built.ids)


def test_should_count_samples_when_iterated_directly_without_a_dataloader(built):
    data = ShardflowIterableDataset(open_dataset(built), seed=2, shuffle_block=9, rank=0, world_size=1)
    it = iter(data)
    head = [next(it)["sample_id"] for _ in range(50)]
    state = data.state_dict()
    assert state["consumed"] == 50
    resumed = ShardflowIterableDataset(open_dataset(built), seed=2, shuffle_block=9, rank=0, world_size=1)
    resumed.load_state_dict(state)
    assert head + [s["sample_id"] for s in resumed] == [s["sample_id"] for s in data]


def test_should_give_ranks_equal_step_counts_through_a_plain_dataloader_too(built):
    ds = open_dataset(built)
    steps = [len(list(DataLoader(ShardflowIterableDataset(ds, rank=r, world_size=3), batch_size=8, num_workers=2)))
             for r in range(3)]
    assert len(set(steps)) == 1


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


def test_should_refuse_loader_options_that_would_break_the_split(built):
    data = ShardflowIterableDataset(open_dataset(built))
    with pytest.raises(ValueError, match="drop_last"):
        ShardflowDataLoader(data, batch_size=4, drop_last=True)


def test_should_take_in_new_snapshots_at_epoch_boundaries_only_with_follow(built):
    ds = open_dataset(built)
    data, loader = rank_loader(ds, 0, 1, 2, batch_size=10, follow=True)
    it = iter(loader)
    seen = list(next(it)["sample_id"])
    new = built.add_snapshot([(0, 10), (1, 10)])
    seen += [i for batch in it for i in batch["sample_id"]]
    assert Counter(seen) == Counter(built.ids[:151]) and data.state_dict()["sources"][0]["snapshot_id"] == 4
    data.set_epoch(1)
    assert Counter(batch_ids(loader)) == Counter(built.ids) and set(new) <= set(built.ids)
    assert data.state_dict()["sources"][0]["snapshot_id"] == 5


def test_should_read_only_what_each_epoch_adds_with_new_only(built):
    data, loader = rank_loader(open_dataset(built), 0, 1, 2, batch_size=10, follow=True, new_only=True,
                               poll_interval=0.02, follow_timeout=0.3)
    assert Counter(batch_ids(loader)) == Counter(built.ids), "the first epoch reads everything"
    new = built.add_snapshot([(0, 7), (2, 4)])
    data.set_epoch(1)
    assert Counter(batch_ids(loader)) == Counter(new)
    data.set_epoch(2)
    assert batch_ids(loader) == [], "nothing new within follow_timeout: an empty epoch"


def test_should_collate_batches_exactly_as_torch_default_collate_does(built):
    from torch.utils.data.dataloader import default_collate

    from shardflow.integrations.torch import collate_samples

    samples = list(open_dataset(built).samples(shuffle_block=5, attributes=True))[:16]
    assert_same_batch(collate_samples(samples), default_collate(samples))
