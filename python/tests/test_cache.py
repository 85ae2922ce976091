"""The shard cache: download once, verify size and SHA-256, LRU eviction."""

import os
import time

import pytest

from conftest import open_dataset
from shardflow import ChecksumError, ShardCache


def test_should_download_each_shard_once_and_then_read_it_from_the_cache(built):
    ds = open_dataset(built)
    for epoch in range(3):
        assert len(list(ds.samples(epoch=epoch))) == 151
    assert sorted(built.store.downloaded) == sorted(s.object_key for s in ds.shards)
    assert ds.cache.stats.downloads == 11 and ds.cache.stats.hits == 22
    assert sorted(os.listdir(built.cache_dir)) == sorted(f"{s.sha256}.h5" for s in ds.shards)


def test_should_raise_a_checksum_error_naming_the_shard_when_a_download_is_corrupt(built):
    ds = open_dataset(built)
    victim = ds.shards[4]
    path = built.store.path(victim.object_key)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF  # same size, other bytes
    open(path, "wb").write(bytes(data))

    with pytest.raises(ChecksumError) as caught:
        list(ds.samples(shuffle_shards=False))
    error = caught.value
    assert error.shard_id == victim.shard_id and victim.shard_id in str(error)
    assert "after download" in str(error) and error.expected_sha256 == victim.sha256
    assert not os.path.exists(ds.cache.path_for(victim)), "nothing bad is left in the cache"
    assert not [n for n in os.listdir(built.cache_dir) if ".part" in n]


@pytest.mark.parametrize("read", [
    lambda ds, victim: ds.read_shard(victim),
    lambda ds, victim: list(ds.samples(shuffle_shards=False, range_size=512, range_threshold=1)),
], ids=["one GET", "ranged GETs ahead"])
def test_should_raise_a_checksum_error_when_a_download_has_the_wrong_size(built, read):
    ds = open_dataset(built)
    victim = ds.shards[0]
    with open(built.store.path(victim.object_key), "ab") as f:
        f.write(b"extra")
    with pytest.raises(ChecksumError, match=f"{victim.bytes} bytes .* {victim.bytes + 5} bytes"):
        read(ds, victim)


def test_should_detect_a_corrupted_cached_file_delete_it_and_download_afresh_next_time(built):
    ds = open_dataset(built, cache_reverify_after=0)  # every read checks
    victim = ds.shards[2]
    good = ds.read_shard(victim).sample_ids
    cached = ds.cache.path_for(victim)
    with open(cached, "r+b") as f:
        f.seek(100)
        f.write(b"\x00\x01\x02\x03")

    with pytest.raises(ChecksumError, match=f"shard {victim.shard_id} .* in the cache at {cached}"):
        ds.read_shard(victim)
    assert not os.path.exists(cached)
    assert ds.read_shard(victim).sample_ids == good
    assert built.store.downloaded.count(victim.object_key) == 2


def test_should_evict_the_least_recently_used_files_beyond_the_limit(built):
    ds = open_dataset(built)
    a, b, c, d = ds.shards[:4]
    cache = ShardCache(built.cache_dir, limit_bytes=a.bytes + b.bytes + c.bytes)
    for shard in (a, b, c):
        cache.read(shard, built.store)
    cache.read(a, built.store)  # a is now more recent than b and c
    cache.read(d, built.store)  # over the limit: b goes first, then c if still needed
    left = {name[:-3] for name in os.listdir(built.cache_dir)}
    assert a.sha256 in left and d.sha256 in left and b.sha256 not in left
    assert cache.size_bytes() <= cache.limit_bytes
    assert cache.stats.evictions >= 1 and cache.stats.hits == 1 and cache.stats.downloads == 4


def test_should_never_evict_the_file_being_read_even_when_it_alone_is_over_the_limit(built):
    ds = open_dataset(built)
    cache = ShardCache(built.cache_dir, limit_bytes=10)
    first, second = ds.shards[:2]
    cache.read(first, built.store)
    assert os.listdir(built.cache_dir) == [f"{first.sha256}.h5"]
    data = cache.read(second, built.store)
    assert os.listdir(built.cache_dir) == [f"{second.sha256}.h5"], "the older file went, the one read stayed"
    assert len(data) == second.bytes


def test_should_read_with_an_unlimited_cache_when_the_limit_is_none(built):
    ds = open_dataset(built, cache_limit_bytes=None)
    assert len(list(ds.samples())) == 151
    assert ds.cache.stats.evictions == 0 and len(os.listdir(built.cache_dir)) == 11


def test_should_check_a_cached_file_again_once_the_last_check_is_older_than_reverify_after(built):
    ds = open_dataset(built, cache_reverify_after=0.5)
    victim = ds.shards[1]
    ds.read_shard(victim)  # downloaded and checked: recorded on the file
    with open(ds.cache.path_for(victim), "r+b") as f:
        f.seek(100)
        f.write(b"\x00\x01\x02\x03")
    ds.cache.lookup(victim)  # within the window: not hashed again (the cost every worker would pay)
    time.sleep(0.6)
    with pytest.raises(ChecksumError, match=victim.shard_id):
        ds.cache.lookup(victim)
