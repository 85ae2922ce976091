"""The plain (numpy) iterator on a real dataset: order, split, shuffle, resume and snapshots."""

from collections import Counter

import pytest

from conftest import open_dataset
from shardflow import ShardEntry, merge_states, shard_order
from shardflow.reading.order import order_key


def ids(samples):
    return [s["sample_id"] for s in samples]


def read_all(ds, world_size=4, **kwargs):
    """Every rank's ids, rank by rank."""
    return [ids(ds.samples(rank=r, world_size=world_size, **kwargs)) for r in range(world_size)]


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
    assert ordered == ["lane-00000/shard-000000000000", "lane-00000/shard-000000000001",
                       "lane-00001/shard-000000000000", "lane-00002/shard-000000000000"]


@pytest.mark.parametrize("world_size", [1, 3, 4, 7, 200])
def test_should_give_every_rank_the_same_count_and_every_sample_once_apart_from_padding(built, world_size):
    ds = open_dataset(built)
    per_rank = read_all(ds, world_size=world_size, seed=3, epoch=1, shuffle_block=10)
    length = -(-151 // world_size)
    assert [len(r) for r in per_rank] == [length] * world_size
    everything = Counter(i for r in per_rank for i in r)
    assert set(everything) == set(built.ids)
    assert sum(everything.values()) - 151 == world_size * length - 151, "only the declared padding repeats"
    dropped = read_all(ds, world_size=world_size, seed=3, epoch=1, shuffle_block=10, drop_last=True)
    assert [len(r) for r in dropped] == [151 // world_size] * world_size
    assert max(Counter(i for r in dropped for i in r).values(), default=1) == 1


def test_should_give_the_same_order_for_the_same_seed_and_epoch_and_another_otherwise(built):
    first = read_all(open_dataset(built), seed=5, epoch=2, shuffle_block=16)
    assert first == read_all(open_dataset(built), seed=5, epoch=2, shuffle_block=16)
    assert first != read_all(open_dataset(built), seed=5, epoch=3, shuffle_block=16)
    assert first != read_all(open_dataset(built), seed=6, epoch=2, shuffle_block=16)


def test_should_keep_log_and_file_order_without_any_shuffling(built):
    ds = open_dataset(built)
    assert ids(ds.samples(shuffle_shards=False, shuffle_block=0)) == built.ids
    # ranks interleave the one order: rank r takes positions r, r + N, r + 2N, ...
    # (151 samples: rank 1 ends with one padding sample, the order's first again)
    assert read_all(ds, world_size=2, shuffle_shards=False, shuffle_block=0)[1] == built.ids[1::2] + built.ids[:1]


def test_should_shuffle_samples_only_within_their_block(built):
    ds = open_dataset(built)
    plain = ids(ds.samples(seed=1, shuffle_block=0))
    blocked = ids(ds.samples(seed=1, shuffle_block=20))
    assert plain != blocked
    for start in range(0, 151, 20):
        assert sorted(plain[start:start + 20]) == sorted(blocked[start:start + 20])
    first = ds.read_shard(shard_order(ds.shards, seed=1, epoch=0)[0])
    assert plain[:len(first)] == first.sample_ids, "no block: the first shard in order, rows in file order"


@pytest.mark.parametrize("before,after", [(1, 1), (1, 3), (3, 2), (4, 7), (2, 200)])
@pytest.mark.parametrize("cut", [0, 1, 9, 25])
def test_should_resume_on_another_number_of_ranks_with_exactly_the_rest(built, before, after, cut):
    ds = open_dataset(built)
    heads, states = [], []
    for rank in range(before):  # every rank delivers `cut` samples, in lockstep
        it = ds.samples(seed=9, epoch=4, shuffle_block=32, rank=rank, world_size=before)
        heads += [next(it)["sample_id"] for _ in range(cut)]
        states.append(it.state_dict())
    state = merge_states(states)
    assert state["consumed"] == min(151, cut * before) and state["epoch"] == 4 and len(str(state)) < 4096

    built.add_snapshot([(0, 6)])  # the resumed run pins the snapshot of the state, not the latest
    fresh = open_dataset(built)
    tails = [ids(fresh.samples(seed=9, rank=r, world_size=after, shuffle_block=32, resume=state)) for r in range(after)]
    assert len({len(t) for t in tails}) == 1
    counted = Counter(heads + [i for t in tails for i in t])
    assert set(counted) == set(built.ids[:151])
    assert sum(counted.values()) - 151 == after * len(tails[0]) - (151 - state["consumed"]), "only padding repeats"


def test_should_continue_one_rank_exactly_where_it_stopped(built):
    ds = open_dataset(built)
    full = ids(ds.samples(seed=2, shuffle_block=24))
    it = ds.samples(seed=2, shuffle_block=24)
    head = [next(it)["sample_id"] for _ in range(70)]
    assert head + ids(ds.samples(seed=2, shuffle_block=24, resume=it.state_dict())) == full


def test_should_not_download_the_shards_a_resume_skips(built):
    ds = open_dataset(built)
    it = ds.samples(shuffle_shards=False, shuffle_block=0)
    for _ in range(151 - 3):
        next(it)
    state = it.state_dict()
    built.store.downloaded.clear()
    fresh = open_dataset(built, cache_dir=built.cache_dir + "-fresh")
    assert len(ids(fresh.samples(shuffle_shards=False, shuffle_block=0, resume=state))) == 3
    assert len(built.store.downloaded) == 1, "only the last shard is read again"


def test_should_refuse_states_of_other_settings_or_ranks_out_of_step(built):
    ds = open_dataset(built)
    it = ds.samples(seed=1)
    next(it)
    with pytest.raises(ValueError, match="seed=1"):
        ds.samples(seed=2, resume=it.state_dict())
    with pytest.raises(ValueError, match="shuffle_block"):
        ds.samples(seed=1, shuffle_block=5, resume=it.state_dict())
    other = ds.samples(seed=1)
    for _ in range(3):
        next(other)
    with pytest.raises(ValueError, match="not in lockstep"):
        merge_states([it.state_dict(), other.state_dict()])
    assert merge_states([it.state_dict(), other.state_dict()], uneven="repeat")["consumed"] == 1


def test_should_refuse_a_state_of_another_snapshot_than_the_one_asked_for_unless_allowed(built):
    it = open_dataset(built).samples(seed=1, shuffle_block=8)
    head = [next(it)["sample_id"] for _ in range(10)]
    built.add_snapshot([(1, 4)])
    pinned = open_dataset(built, snapshot=5)
    with pytest.raises(ValueError, match="snapshot 4.*allow_snapshot_change"):
        pinned.samples(seed=1, shuffle_block=8, resume=it.state_dict())
    rest = ids(pinned.samples(seed=1, shuffle_block=8, resume=it.state_dict(), allow_snapshot_change=True))
    assert len(rest) == 155 - 10 and len(head) == 10


def test_should_read_a_snapshot_committed_meanwhile_only_when_asked_to(built):
    ds = open_dataset(built)
    it = ds.samples(seed=1)
    first = next(it)["sample_id"]
    new = built.add_snapshot([(1, 8), (2, 5)])
    rest = ids(it)
    assert Counter([first] + rest) == Counter(built.ids[:151]), "an epoch reads the snapshot it started on"
    assert ds.refresh() == [5]
    assert set(new) <= set(ids(ds.samples(seed=1)))
