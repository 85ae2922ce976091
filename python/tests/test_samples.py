"""The plain (numpy) iterator: order, split, shuffle, resume and follow."""

import threading
from collections import Counter

import pytest

from conftest import open_dataset
from shardflow import ShardEntry, shard_order
from shardflow.reading.order import order_key


def ids(samples):
    return [s["sample_id"] for s in samples]


def read_all(ds, world_size=4, **kwargs):
    """Every reader's ids, reader by reader."""
    return [ids(ds.samples(rank=g, world_size=world_size, **kwargs)) for g in range(world_size)]


def entry(shard_id):
    return ShardEntry(shard_id, shard_id + ".h5", 0, 0, 1, 1, "0" * 64, "f", 0, 0, 1)


def test_should_order_shards_by_sha256_of_seed_epoch_and_shard_id_as_any_language_can():
    assert order_key(7, 2, "cams/v1/lane-00000/shard-000000000000") == \
        "69ce709bf3b7aa51a195bd9e822e1b5f56944d30b7ae330302989ac58a0d785e"
    # the example in dataset/FORMAT.md, "Reading"
    assert order_key(7, 0, "d/v1/lane-00000/shard-000000000001") == \
        "2698bc646d573c8377f350856be06998dcc0ffb4726840978880ab838d1c7cc8"
    shards = [entry(f"cams/v1/lane-0000{lane}/shard-00000000000{seq}") for lane, seq in ((2, 0), (1, 0), (0, 1), (0, 0))]
    ordered = [s.shard_id[-29:] for s in shard_order(shards, seed=7, epoch=2)]
    # 69ce..., 763c..., 8bcd..., e2d9...
    assert ordered == ["lane-00000/shard-000000000000", "lane-00000/shard-000000000001",
                       "lane-00001/shard-000000000000", "lane-00002/shard-000000000000"]


def test_should_read_every_sample_exactly_once_per_epoch_across_2_ranks_x_2_workers(built):
    ds = open_dataset(built)
    for epoch in (0, 1):
        per_reader = read_all(ds, world_size=4, seed=3, epoch=epoch, shuffle_buffer=10)
        everything = [i for reader in per_reader for i in reader]
        assert Counter(everything) == Counter(built.ids), f"epoch {epoch}: some sample missing or repeated"
        assert all(per_reader), "11 shards over 4 readers: every reader has some"


def test_should_give_the_same_order_for_the_same_seed_and_epoch(built):
    first = read_all(open_dataset(built), seed=5, epoch=2, shuffle_buffer=16)
    again = read_all(open_dataset(built), seed=5, epoch=2, shuffle_buffer=16)
    assert first == again


def test_should_give_another_order_for_another_epoch_or_seed(built):
    ds = open_dataset(built)
    base = ids(ds.samples(seed=5, epoch=0, shuffle_buffer=16))
    assert base != ids(ds.samples(seed=5, epoch=1, shuffle_buffer=16))
    assert base != ids(ds.samples(seed=6, epoch=0, shuffle_buffer=16))
    assert sorted(base) == sorted(built.ids)


def test_should_keep_log_and_file_order_without_any_shuffling(built):
    ds = open_dataset(built)
    assert ids(ds.samples(shuffle_shards=False, shuffle_buffer=0)) == built.ids


def test_should_shuffle_samples_within_the_buffer_but_not_without_it(built):
    ds = open_dataset(built)
    plain = ids(ds.samples(seed=1, shuffle_buffer=0))
    buffered = ids(ds.samples(seed=1, shuffle_buffer=20))
    assert plain != buffered and sorted(plain) == sorted(buffered)
    first = ds.read_shard(shard_order(ds.shards, seed=1, epoch=0)[0])
    assert plain[:len(first)] == first.sample_ids, "no buffer: the first shard in order, rows in file order"


@pytest.mark.parametrize("buffer", [0, 1, 16, 500])
@pytest.mark.parametrize("cut", [0, 1, 9, 40, 75, 151])
def test_should_resume_mid_epoch_with_exactly_the_remaining_samples(built, buffer, cut):
    ds = open_dataset(built)
    full = ids(ds.samples(seed=9, epoch=4, shuffle_buffer=buffer))
    it = ds.samples(seed=9, epoch=4, shuffle_buffer=buffer)
    head = [next(it)["sample_id"] for _ in range(cut)]
    state = it.state_dict()
    assert state["epoch"] == 4 and state["snapshot_id"] == 4 and state["yielded"] == ({"0": cut} if cut else {})

    built.add_snapshot([(0, 6)])  # the resumed run pins the snapshot of the state, not the latest
    resumed = open_dataset(built).samples(seed=9, shuffle_buffer=buffer, resume=state)
    rest = ids(resumed)
    assert head + rest == full
    assert resumed.state_dict()["yielded"] == {"0": 151}


def test_should_not_download_the_shards_a_resume_skips(built):
    ds = open_dataset(built)
    total = len(ds)
    it = ds.samples(shuffle_buffer=0)
    for _ in range(total - 3):
        next(it)
    state = it.state_dict()
    built.store.downloaded.clear()
    fresh = open_dataset(built, cache_dir=built.cache_dir + "-fresh")
    assert len(ids(fresh.samples(shuffle_buffer=0, resume=state))) == 3
    assert len(built.store.downloaded) == 1, "only the last shard is read again"


def test_should_resume_each_of_several_readers_where_it_was(built):
    ds = open_dataset(built)
    states, heads = [], []
    for g in range(3):
        it = ds.samples(rank=g, world_size=3, seed=2, shuffle_buffer=8)
        heads.append([next(it)["sample_id"] for _ in range(5 + 7 * g)])
        states.append(it.state_dict())
    tails = [ids(ds.samples(rank=g, world_size=3, seed=2, shuffle_buffer=8, resume=states[g])) for g in range(3)]
    assert Counter(i for part in heads + tails for i in part) == Counter(built.ids)


def test_should_refuse_a_resume_state_made_with_other_settings(built):
    ds = open_dataset(built)
    it = ds.samples(seed=1)
    next(it)
    with pytest.raises(ValueError, match="seed=1"):
        ds.samples(seed=2, resume=it.state_dict())
    with pytest.raises(ValueError, match="1 readers"):
        ds.samples(seed=1, rank=0, world_size=2, resume=it.state_dict())


def test_should_pick_up_a_snapshot_committed_during_iteration(built):
    ds = open_dataset(built)
    committed = []

    def commit_later():
        committed.extend(built.add_snapshot([(1, 8), (2, 5)]))

    seen = []
    committer = None
    for s in ds.samples(seed=1, shuffle_buffer=10, follow=True, poll_interval=0.02, follow_timeout=1.0):
        seen.append(s["sample_id"])
        if committer is None:  # iteration is under way: commit from another thread
            committer = threading.Thread(target=commit_later)
            committer.start()
    committer.join()
    assert len(committed) == 13
    assert Counter(seen) == Counter(built.ids), "the pinned samples and the new ones, each once"
    assert set(seen[-13:]) == set(committed), "new snapshots come after the pinned one"


def test_should_split_followed_snapshots_across_readers_exactly_once(built):
    ds = open_dataset(built)
    new_ids = []
    for _ in range(5):  # five one-shard snapshots: spread over readers by position, not all to reader 0
        new_ids += built.add_snapshot([(0, 3)])
    per_reader = read_all(ds, world_size=4, follow=True, poll_interval=0.01, follow_timeout=0.2, shuffle_buffer=4)
    assert Counter(i for r in per_reader for i in r) == Counter(built.ids)
    got_new = [len(set(r) & set(new_ids)) for r in per_reader]
    assert sorted(got_new) == [3, 3, 3, 6]


def test_should_stop_following_after_the_timeout_without_new_snapshots(built):
    import time

    ds = open_dataset(built)
    started = time.monotonic()
    assert len(ids(ds.samples(follow=True, poll_interval=0.05, follow_timeout=0.3))) == 151
    assert 0.3 <= time.monotonic() - started < 3
