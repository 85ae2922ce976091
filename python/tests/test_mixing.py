"""Mixing (docs/READING-RULES.md, "Mixing"): exact per-epoch counts, an even interleave, sources
cycling through their own epochs, and a mixed epoch read through a real Dataset and resumed."""

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import open_dataset
from shardflow import Mix
from shardflow.reading.mix import MixedOrder, MixSource, apportion, interleave
from test_reading_rules import entries

weights = st.lists(st.one_of(st.integers(1, 50), st.floats(0.001, 10)), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(total=st.integers(0, 5000), weights=weights)
def test_should_apportion_the_epoch_exactly_by_largest_remainder(total, weights):
    counts = apportion(total, weights)
    assert sum(counts) == total
    whole = sum(Fraction(w) for w in weights)
    quotas = [total * Fraction(w) / whole for w in weights]
    assert all(abs(n - q) < 1 for n, q in zip(counts, quotas)), "each count within one of its exact share"


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(0, 400), min_size=1, max_size=6))
def test_should_interleave_each_source_its_exact_count_evenly(counts):
    sources, indices = interleave(counts)
    assert Counter(sources.tolist()) == Counter({i: n for i, n in enumerate(counts) if n})
    total = sum(counts)
    for i, n in enumerate(counts):
        mine = indices[sources == i]
        assert mine.tolist() == list(range(n)), "a source's samples in its own order"
        seen = np.cumsum(sources == i)  # how many of source i within each prefix
        ideal = np.arange(1, total + 1) * n / max(total, 1)
        # Each other source can be half a sample off its own ideal at any point: the bound of this interleave.
        assert np.all(np.abs(seen - ideal) <= 1 + len(counts) / 2), "no source runs far ahead or behind"


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.lists(st.integers(1, 30), min_size=1, max_size=4), min_size=1, max_size=3),
       counts=st.lists(st.integers(0, 60), min_size=3, max_size=3), epochs=st.integers(1, 4), seed=st.integers(0, 99))
def test_should_cycle_each_source_through_its_own_epochs(sizes, counts, epochs, seed):
    sources = [MixSource(tuple(entries(s)), True, 7) for s in sizes]
    counts = counts[:len(sources)]
    streams = [Counter() for _ in sources]
    for epoch in range(epochs):
        order = MixedOrder(sources, counts, seed, epoch)
        for source, shard, row in order.entries(np.arange(order.size)):
            streams[source][(shard.shard_id, row)] += 1
    for i, source in enumerate(sources):
        taken = epochs * counts[i]
        full, part = divmod(taken, source.size)
        assert sum(streams[i].values()) == taken
        assert len(streams[i]) == (source.size if full else part), "whole epochs of the source, then part of one"
        assert set(streams[i].values()) <= {full, full + 1}, "no sample of a source twice before its epoch ends"


def test_should_read_a_mix_with_exact_counts_per_epoch_and_resume_on_another_world_size(built):
    ds = open_dataset(built)
    mix = Mix([ds, ds.at(2)], weights=[0.75, 0.25], epoch_samples=80)  # the version now, and as at snapshot 2

    def read(world_size, **kwargs):
        return [[s["sample_id"] for s in mix_samples(mix, rank=r, world_size=world_size, **kwargs)]
                for r in range(world_size)]

    per_rank = read(3, seed=4, epoch=1)
    assert [len(r) for r in per_rank] == [27, 27, 27], "80 over 3 ranks: 27 each, one padded"
    cut = mix_samples(mix, rank=0, world_size=3, seed=4, epoch=1)
    for _ in range(10):
        next(cut)
    state = cut.state_dict()
    assert state["consumed"] == 30 and [s["count"] for s in state["sources"]] == [60, 20]
    first = [i for r in per_rank for i in r[:10]]
    rest = read(2, seed=4, resume=state)
    everything = Counter(first + [i for r in rest for i in r])
    assert sum(everything.values()) == 80
    assert everything == Counter(i for r in read(1, seed=4, epoch=1) for i in r)
    snapshot_2 = {i for s in ds.at(2).shards for i in ds.read_shard(s).sample_ids}
    assert sum(n for i, n in everything.items() if i in snapshot_2) >= 20, "the second source gave its 20"


def mix_samples(mix, **kwargs):
    return mix.samples(shuffle_block=16, **kwargs)


def test_should_refuse_a_mix_without_weights_or_counts(built):
    ds = open_dataset(built)
    with pytest.raises(ValueError, match="either weights or counts"):
        Mix([ds, ds])
    with pytest.raises(ValueError, match="> 0"):
        apportion(10, [1, 0])
