"""Download-ahead: bounded depth, ranged GETs reassembled in place, the same samples whatever the
settings, and decoding without copies."""

import hashlib
import os
import threading
import time
from collections import Counter

import numpy as np
import pytest

from conftest import RecordingStore, open_dataset
from shardflow import ChecksumError, S3Settings, S3Store, ShardCache
from shardflow.reading.fetch import ShardFetcher, byte_ranges


def ids(samples):
    return [s["sample_id"] for s in samples]


class CountingRanges(RecordingStore):
    def __init__(self, root):
        super().__init__(root)
        self.reads = []
        self._lock = threading.Lock()

    def read_into(self, key, out, start=0):
        with self._lock:
            self.reads.append((key, start, len(out)))
        return super().read_into(key, out, start)


class GatedStore(RecordingStore):
    """Holds every GET until ``gate`` is set, counting how many are in flight at once."""

    def __init__(self, root):
        super().__init__(root)
        self.gate = threading.Event()
        self.in_flight = 0
        self.most_in_flight = 0
        self._lock = threading.Lock()

    def read_into(self, key, out, start=0):
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            assert self.gate.wait(10)
            return super().read_into(key, out, start)
        finally:
            with self._lock:
                self.in_flight -= 1


def test_should_split_only_objects_from_the_threshold_on_into_ranges_covering_every_byte():
    assert byte_ranges(15, 8, 16) == [(0, 15)]
    assert byte_ranges(20, 8, 16) == [(0, 8), (8, 8), (16, 4)]
    assert byte_ranges(16, 8, 16) == [(0, 8), (8, 8)]
    assert byte_ranges(8, 8, 1) == [(0, 8)]


def test_should_reassemble_a_shard_from_parallel_ranged_gets_byte_for_byte(built, tmp_path):
    store = CountingRanges(built.store.root)
    ds = open_dataset(built)
    shard = max(ds.shards, key=lambda s: s.bytes)
    fetcher = ShardFetcher(ShardCache(tmp_path / "c"), store, depth=3, range_size=1000, range_threshold=1)
    try:
        fetcher.schedule([shard])
        data = fetcher.get(shard)
    finally:
        fetcher.close()
    with open(built.store.path(shard.object_key), "rb") as f:
        assert bytes(data) == f.read()
    starts = sorted(start for key, start, _ in store.reads if key == shard.object_key)
    assert starts == list(range(0, shard.bytes, 1000)) and len(starts) > 1
    assert os.path.getsize(ShardCache(tmp_path / "c").path_for(shard)) == shard.bytes


def test_should_keep_at_most_prefetch_gets_in_flight_and_prefetch_plus_one_shards_pending(built, tmp_path):
    store = GatedStore(built.store.root)
    ds = open_dataset(built)
    shards = list(ds.shards)
    fetcher = ShardFetcher(ShardCache(tmp_path / "c"), store, depth=2, range_size=1000, range_threshold=1)
    try:
        fetcher.schedule(shards)
        assert fetcher.pending() == [s.shard_id for s in shards[:3]]
        deadline = time.monotonic() + 10
        while store.in_flight < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # a third GET, were the bound broken, would start now
        assert store.in_flight == 2
        store.gate.set()
        for k, shard in enumerate(shards):
            fetcher.schedule(shards[k:k + 3])
            assert len(fetcher.pending()) <= 3
            with open(built.store.path(shard.object_key), "rb") as f:
                assert bytes(fetcher.get(shard)) == f.read()
    finally:
        store.gate.set()
        fetcher.close()
    assert store.most_in_flight == 2


def test_should_leave_no_part_file_when_closed_with_parts_of_a_ranged_download_not_started(built, tmp_path):
    store = GatedStore(built.store.root)
    ds = open_dataset(built)
    shard = max(ds.shards, key=lambda s: s.bytes)
    cache = ShardCache(tmp_path / "c")
    fetcher = ShardFetcher(cache, store, depth=1, range_size=500, range_threshold=1)  # one GET thread
    fetcher.schedule([shard])
    deadline = time.monotonic() + 10
    while store.in_flight < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [n for n in os.listdir(cache.directory) if ".part" in n], "the first part is being written"
    closing = threading.Thread(target=fetcher.close)
    closing.start()  # drops the queued parts, then waits for the running one
    time.sleep(0.2)
    store.gate.set()
    closing.join(10)
    assert not closing.is_alive()
    assert os.listdir(cache.directory) == [], "neither a part file nor a cache file of a partial download"


@pytest.mark.parametrize("settings", [dict(prefetch=3, range_size=700, range_threshold=1),
                                      dict(prefetch=8, range_size=1 << 20, range_threshold=1 << 30)])
def test_should_yield_the_same_samples_in_the_same_order_whatever_the_prefetch_and_ranges(built, tmp_path, settings):
    plain = open_dataset(built, cache_dir=tmp_path / "plain")
    other = open_dataset(built, cache_dir=tmp_path / "other")
    for rank in (0, 1):
        want = ids(plain.samples(seed=9, epoch=1, shuffle_block=13, rank=rank, world_size=2, prefetch=0))
        got = ids(other.samples(seed=9, epoch=1, shuffle_block=13, rank=rank, world_size=2, **settings))
        assert got == want
    head = other.samples(seed=2, shuffle_block=9, **settings)
    first = [next(head)["sample_id"] for _ in range(40)]
    rest = ids(other.samples(seed=2, shuffle_block=9, resume=head.state_dict(), **settings))
    assert Counter(first + rest) == Counter(built.ids)
    assert first + rest == ids(plain.samples(seed=2, shuffle_block=9, prefetch=0))


def test_should_raise_a_checksum_error_for_a_corrupt_ranged_download_and_cache_nothing(built):
    ds = open_dataset(built)
    victim = ds.shards[3]
    path = built.store.path(victim.object_key)
    data = bytearray(open(path, "rb").read())
    data[len(data) - 3] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(ChecksumError, match="after download") as caught:
        list(ds.samples(shuffle_shards=False, range_size=512, range_threshold=1))
    assert caught.value.shard_id == victim.shard_id
    assert not os.path.exists(ds.cache.path_for(victim))
    assert not [n for n in os.listdir(built.cache_dir) if ".part" in n], "no half file is left"


def test_should_keep_the_cached_file_intact_when_a_trainer_changes_a_sample_in_place(built):
    ds = open_dataset(built)
    first = next(iter(ds.samples(shuffle_block=0, shuffle_shards=False)))
    original = np.array(first["image"])
    first["image"][...] = -1.0  # e.g. an in-place normalisation
    shard = ds.shards[0]
    assert hashlib.sha256(open(ds.cache.path_for(shard), "rb").read()).hexdigest() == shard.sha256
    again = next(iter(ds.samples(shuffle_block=0, shuffle_shards=False)))
    assert ds.cache.stats.hits >= 1
    np.testing.assert_array_equal(again["image"], original)


def test_should_decode_tensors_as_views_into_the_downloaded_bytes_and_samples_as_row_views(built):
    ds = open_dataset(built)
    shard = ds.shards[1]
    data = ds.shard_bytes(shard)
    rows = ds.decode_shard(shard, data, attributes=False)
    assert np.shares_memory(rows.tensors["image"], np.frombuffer(data, np.uint8)), "no copy of the tensor bytes"
    assert rows.tensors["image"].flags.writeable, "torch needs writable arrays"
    sample = next(iter(ds.samples(shuffle_block=0, shuffle_shards=False)))
    assert isinstance(sample["label"], np.ndarray) and sample["label"].shape == ()
    assert sample["image"].base is not None, "a view of the shard's tensor, not a copy"


def test_should_give_each_process_its_own_s3_client(monkeypatch):
    store = S3Store("bucket", S3Settings(endpoint="http://127.0.0.1:9", access_key="k", secret_key="s"))
    parent = store.client
    assert store.client is parent
    pid = os.getpid()
    monkeypatch.setattr(os, "getpid", lambda: pid + 1)  # as a forked DataLoader worker sees it
    assert store.client is not parent


def test_should_read_without_a_local_cache_downloading_afresh_and_writing_nothing(built, tmp_path, monkeypatch):
    monkeypatch.setenv("SHARDFLOW_CACHE_DIR", os.fspath(tmp_path / "default-cache"))
    ds = open_dataset(built, cache_dir=False)
    for epoch in (0, 1):
        assert Counter(ids(ds.samples(epoch=epoch, range_size=700, range_threshold=1))) == Counter(built.ids)
    assert sorted(built.store.downloaded) == sorted(2 * [s.object_key for s in ds.shards])
    assert ds.cache.stats.hits == 0 and ds.cache.stats.downloads == 2 * len(ds.shards)
    assert not os.path.exists(tmp_path / "default-cache") and not os.path.exists(built.cache_dir)


def test_should_download_into_memory_and_cache_afterwards_when_the_cache_file_cannot_be_made(built, monkeypatch):
    def no_room(fd, offset, length):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", no_room)
    ds = open_dataset(built)
    assert Counter(ids(ds.samples(range_size=700, range_threshold=1))) == Counter(built.ids)
    assert sorted(os.listdir(built.cache_dir)) == sorted(f"{s.sha256}.h5" for s in ds.shards), \
        "verified downloads are still cached, by the writer thread"


class SlowStore(RecordingStore):
    def read_into(self, key, out, start=0):
        time.sleep(0.2)  # long enough for every reader to ask for the shard while it downloads
        return super().read_into(key, out, start)


@pytest.mark.parametrize("ranged", [False, True])
def test_should_download_a_shard_once_for_all_readers_of_one_cache(built, tmp_path, ranged):
    store = SlowStore(built.store.root)
    shard = open_dataset(built).shards[2]
    cache_dir = tmp_path / "shared"
    settings = dict(range_size=64, range_threshold=1) if ranged else {}
    # Separate caches and fetchers, as separate DataLoader workers or ranks have: only the directory is shared.
    fetchers = [ShardFetcher(ShardCache(cache_dir), store, depth=2, **settings) for _ in range(4)]
    got = [None] * 4

    def read(k):
        fetchers[k].schedule([shard])
        got[k] = bytes(fetchers[k].get(shard))

    threads = [threading.Thread(target=read, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for f in fetchers:
        f.close()
    assert store.downloaded == [shard.object_key], "one download, the other readers waited for it"
    assert all(hashlib.sha256(g).hexdigest() == shard.sha256 for g in got)
    assert sorted(os.listdir(cache_dir)) == [f"{shard.sha256}.h5"], "no lock file left"


def test_should_not_wait_for_threads_where_a_finalizer_runs_inside_thread_start():
    # the garbage collector may finalize a dropped batch generator inside Thread.start, where
    # threading's shutdown-locks lock is held and joining a thread deadlocks: cleanup must see it
    import threading

    from shardflow.reading.fastpath import finalized_inside_thread_start

    assert not finalized_inside_thread_start()
    lock = getattr(threading, "_shutdown_locks_lock", None)
    if lock is None:
        pytest.skip("this Python has no shutdown-locks lock to hold")
    with lock:
        assert finalized_inside_thread_start()
    assert not finalized_inside_thread_start()
