"""Property tests of the reading rules (docs/READING-RULES.md) on the order and split arithmetic
alone: any shard sizes, 1-64 ranks, 0-16 workers, 0-5,000 samples, resumed on other topologies."""

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from shardflow.format.entries import ShardEntry
from shardflow.reading.order import EpochOrder
from shardflow.reading.split import RankShare, worker_batches


def entries(sizes):
    return [ShardEntry(f"d/v1/lane-00000/shard-{i:012d}", "k", 0, i, n, 1, "0" * 64, "f", 0, 0, 1)
            for i, n in enumerate(sizes)]


shard_sizes = st.lists(st.integers(1, 400), min_size=0, max_size=40).filter(lambda s: sum(s) <= 5000)
orders = st.builds(lambda sizes, seed, epoch, block, shuffle: EpochOrder(entries(sizes), seed, epoch, shuffle, block),
                   shard_sizes, st.integers(0, 2 ** 63 - 1), st.integers(0, 1000), st.integers(0, 600), st.booleans())


def delivered_order(batch_count, num_workers):
    """The order a DataLoader hands out batches: round robin over the workers, skipping exhausted
    ones (test_torch_loader_order proves it on a real DataLoader)."""
    queues = [list(worker_batches(batch_count, w, num_workers)) for w in range(max(num_workers, 1))]
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


@settings(max_examples=150, deadline=None)
@given(orders)
def test_should_order_every_sample_of_the_epoch_exactly_once_and_the_same_way_twice(order):
    shard, row = order.locate(np.arange(order.size))
    pairs = Counter(zip(shard.tolist(), row.tolist()))
    assert len(pairs) == order.size and set(pairs.values()) <= {1}
    assert all(0 <= r < order.shards[s].sample_count for s, r in pairs)
    again = EpochOrder(order.shards, order.seed, order.epoch, False, order.shuffle_block)
    assert np.array_equal(again.source_positions(np.arange(order.size)), order.source_positions(np.arange(order.size)))
    if order.shuffle_block > 1:  # a sample moves only within its block
        positions = np.arange(order.size)
        moved = order.source_positions(positions)
        assert np.array_equal(moved // order.shuffle_block, positions // order.shuffle_block)


@settings(max_examples=300, deadline=None)
@given(size=st.integers(0, 5000), world_size=st.integers(1, 64), drop_last=st.booleans(), data=st.data())
def test_should_give_every_rank_the_same_count_and_every_sample_once_apart_from_declared_padding(
        size, world_size, drop_last, data):
    consumed = data.draw(st.integers(0, size))
    remaining = size - consumed
    shares = [RankShare(size, consumed, r, world_size, drop_last) for r in range(world_size)]
    length = remaining // world_size if drop_last else -(-remaining // world_size)
    assert {s.length for s in shares} == {length}
    taken = Counter()
    padding = 0
    for s in shares:
        positions = s.positions(0, s.length).tolist()
        assert len(positions) == length and all(consumed <= p < size for p in positions)
        first_pass = [p for i, p in enumerate(positions) if s.rank + world_size * i < remaining]
        offsets = [s.rank + world_size * i for i in range(len(positions))]
        repeats = [(o, p) for o, p in zip(offsets, positions) if o >= remaining]
        assert all(p == consumed + offset % remaining for offset, p in repeats), "padding repeats the remainder"
        padding += s.padding()
        assert s.padding() == length - len(first_pass)
        taken.update(first_pass)
    assert padding == (0 if drop_last else world_size * length - remaining)
    expected = range(consumed, consumed + world_size * length) if drop_last else range(consumed, size)
    assert taken == Counter(expected)


@settings(max_examples=200, deadline=None)
@given(batches=st.integers(0, 300), workers=st.integers(0, 16))
def test_should_hand_out_the_batches_of_all_workers_in_order(batches, workers):
    assert delivered_order(batches, workers) == list(range(batches))


topologies = st.tuples(st.integers(1, 64), st.integers(0, 16), st.integers(1, 64), st.floats(0, 1))


@settings(max_examples=200, deadline=None)
@given(order=orders, runs=st.lists(topologies, min_size=1, max_size=4), drop_last=st.booleans())
def test_should_resume_on_any_topology_with_no_sample_repeated_and_none_lost(order, runs, drop_last):
    """Each run (ranks, workers, batch size) delivers some batches in lockstep, then the job stops;
    the next run starts from the state. The last run reads to the end of the epoch."""
    consumed, seen = 0, Counter()
    for n, (world_size, workers, batch_size, part) in enumerate(runs):
        shares = [RankShare(order.size, consumed, r, world_size, drop_last) for r in range(world_size)]
        count = shares[0].batch_count(batch_size)
        steps = count if n == len(runs) - 1 else int(part * count)
        delivered = delivered_order(count, workers)[:steps]
        for s in shares:
            for j in delivered:
                i = np.arange(j * batch_size, min((j + 1) * batch_size, s.length))
                fresh = s.rank + world_size * i < s.remaining  # padding repeats: declared, not counted
                seen.update(s.batch(j, batch_size)[fresh].tolist())
        after = shares[0].consumed_after(steps, batch_size)
        assert {s.consumed_after(steps, batch_size) for s in shares} == {after}, "every rank's state agrees"
        if after < order.size:
            assert seen == Counter(range(after)), "what was consumed is exactly the prefix the state names"
        consumed = after
    assert consumed == order.size
    assert max(seen.values(), default=1) == 1, "no sample twice"
    assert set(seen) <= set(range(order.size))
    if not drop_last:
        assert seen == Counter(range(order.size)), "none lost"
