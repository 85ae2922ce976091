"""ds[i] and get_many: the same samples as a full read, through verified pages, and only a few of them."""

import logging
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from randomaccess_data import PAGE, RangeStore, SPEC, bucket, same_sample, write
from shardflow import Dataset
from shardflow.errors import PageChecksumError
from shardflow.format.pages import DEFAULT_PAGE_SIZE, page_index_key

VERSIONS = {"v1": {}, "v2": {"chunk_rows": 16, "compression": "gzip:4"}, "v3": {"page_size": None}}
"""contiguous (as jHDF writes), chunked and compressed (as the C library writes), no page index (older shards)"""


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    path = bucket(tmp_path_factory, "bucket")
    for version, options in VERSIONS.items():
        write(path, version, **options)
    return path


@pytest.fixture(scope="module")
def full(root):
    """Every version's samples as the streaming reader reads them, in snapshot order."""
    return {v: list(open_ds(root, v).samples(shuffle_shards=False, shuffle_block=0, attributes=True))
            for v in VERSIONS}


def open_ds(root, version, store=None, **kwargs):
    kwargs.setdefault("cache_dir", False)
    return Dataset("s3://tests", "mixed", version, s3=store or RangeStore(root), **kwargs)


def without_attributes(sample):
    return {k: v for k, v in sample.items() if k != "attributes"}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(version=st.sampled_from(sorted(VERSIONS)), picks=st.lists(st.integers(-1000, 1000), min_size=1, max_size=12))
def test_should_read_any_indices_as_the_full_read_does(root, full, version, picks):
    ds = open_ds(root, version)
    n = len(ds)
    assert n == len(full[version]) == 321
    indices = [p % n - (n if p < 0 else 0) for p in picks]  # negative ones count from the end
    for i in indices[:4]:
        same_sample(ds[i], without_attributes(full[version][i]))
    for i, sample in zip(indices, ds.get_many(indices, attributes=True)):
        same_sample(sample, full[version][i])


def test_should_fetch_only_a_few_verified_pages_of_a_big_shard(tmp_path, full, root):
    write(tmp_path, sizes=(4000,), snapshots=1, page_size=DEFAULT_PAGE_SIZE)  # 12.9 MB, as the sink's default seal
    reference = list(open_ds(tmp_path, "v1").samples(shuffle_shards=False, shuffle_block=0))
    for i in (0, 2345, 3999):
        ds = open_ds(tmp_path, "v1")
        shard = ds.shards[0]
        same_sample(ds[i], reference[i])
        ranges = ds.store.shard_ranges()
        fetched = sum(length for _, _, length in ranges)
        assert all(start % DEFAULT_PAGE_SIZE == 0 for _, start, _ in ranges)
        # one page or two per column the row has (15 datasets here), and the file's metadata
        assert fetched / shard.bytes < 0.08, f"sample {i}: {fetched} of {shard.bytes} bytes in {len(ranges)} GETs"
        assert len(ranges) <= 16 and max(length for _, _, length in ranges) <= 2 * DEFAULT_PAGE_SIZE
        assert ds.store.downloads == []
        assert ds.random_access().stats.pages_verified >= fetched // DEFAULT_PAGE_SIZE


def test_should_name_the_shard_and_page_when_a_page_is_damaged(root, full):
    store = RangeStore(root)
    ds = open_ds(root, "v1", store)
    shard, row = ds.locate(100)
    image = ds.random_access()._shard(shard).rows.columns["image"]
    offset = image.id.get_offset() + row * 3 * 16 * 16 * 4 + 5
    fresh = open_ds(root, "v1", store)
    store.damage(shard.object_key, offset)

    with pytest.raises(PageChecksumError) as error:
        fresh[100]

    assert error.value.shard_id == shard.shard_id and error.value.page == offset // PAGE
    assert f"page {offset // PAGE}" in str(error.value) and shard.object_key in str(error.value)
    # the page was fetched twice (a transfer error is not a damaged object) before giving up
    assert len([r for r in store.shard_ranges() if r[1] <= offset < r[1] + r[2]]) >= 2
    same_sample(fresh[50], without_attributes(full["v1"][50]))  # other pages of the shard still read
    pickle.loads(pickle.dumps(error.value))


def test_should_catch_damage_in_the_files_metadata_too(root):
    store = RangeStore(root)
    ds = open_ds(root, "v2", store)
    shard, _ = ds.locate(0)
    store.damage(shard.object_key, 100)  # the superblock's page
    with pytest.raises(PageChecksumError, match="page 0"):
        ds[0]


def test_should_read_shards_without_a_usable_page_index_whole(root, full, caplog):
    store = RangeStore(root)
    ds = open_ds(root, "v3", store)
    assert not any(s.page_index_sha256 for s in ds.shards)
    same_sample(ds[200], without_attributes(full["v3"][200]))
    assert ds.random_access().stats.whole_shards == 1 and store.shard_ranges() == []

    class NoIndexes(RangeStore):
        def get(self, key):
            return b'{"formatVersion":1}' if key.endswith(".pages.json") else super().get(key)

    damaged = open_ds(root, "v1", NoIndexes(root))
    with caplog.at_level(logging.WARNING):
        same_sample(damaged[5], without_attributes(full["v1"][5]))
    assert "it cannot vouch for the shard's pages" in caplog.text and "reading shard" in caplog.text
    assert damaged.random_access().stats.whole_shards == 1


def test_should_read_a_shard_in_the_cache_from_the_cache(root, full, tmp_path):
    cache = tmp_path / "cache"
    list(open_ds(root, "v1", cache_dir=cache).samples())
    store = RangeStore(root)
    ds = open_ds(root, "v1", store, cache_dir=cache)
    for i in (0, 77, 320):
        same_sample(ds[i], without_attributes(full["v1"][i]))
    assert store.ranges == [] and store.downloads == []


def test_should_index_in_snapshot_order_like_a_sequence(root, full):
    ds = open_ds(root, "v1")
    ends = np.cumsum([s.sample_count for s in ds.shards])
    for i in (0, 39, 40, 46, 47, 166, 167, 320, -1, -321):
        shard, row = ds.locate(i)
        k = ds.shards.index(shard)
        assert (ends[k - 1] if k else 0) + row == i % 321 and 0 <= row < shard.sample_count
    assert [s["sample_id"] for s in ds[318:]] == [s["sample_id"] for s in full["v1"][318:]]
    assert ds[np.int64(3)]["sample_id"] == full["v1"][3]["sample_id"]
    with pytest.raises(IndexError, match="out of range for snapshot 2 of mixed/v1 \\(321 samples\\)"):
        ds[321]
    with pytest.raises(TypeError):
        ds[1.0]


def test_should_see_only_the_pinned_snapshot_until_refreshed(root, full):
    ds = open_ds(root, "v1", snapshot=1)
    assert len(ds) == 167
    assert ds[-1]["sample_id"] == full["v1"][166]["sample_id"]
    ds.refresh()
    assert len(ds) == 321 and ds[-1]["sample_id"] == full["v1"][320]["sample_id"]


def test_should_pickle_a_dataset_that_read_by_index(root, full):
    ds = open_ds(root, "v2")
    ds[7]
    copy = pickle.loads(pickle.dumps(ds))
    same_sample(copy[8], without_attributes(full["v2"][8]))


def test_should_check_the_page_index_against_the_log(root):
    ds = open_ds(root, "v1")
    shard = ds.shards[0]
    data = ds.store.get(page_index_key(shard.object_key))
    from shardflow.format.pages import PageIndexMismatch, parse_page_index
    index = parse_page_index(data, shard, "k")
    assert index.page_size == PAGE and index.shard_sha256 == shard.sha256
    with pytest.raises(PageIndexMismatch, match="commit log says"):
        parse_page_index(data + b" ", shard, "k")


def test_should_use_the_spec_of_the_dataset(root):
    assert open_ds(root, "v1").spec.tensor_names == SPEC.tensor_names


def test_should_read_a_batch_spanning_more_shards_than_it_keeps_open(root, full):
    ds = open_ds(root, "v2")
    access = ds.random_access(open_shards=2)
    everywhere = [0, 45, 47, 166, 167, 230, 320, 1, 46]  # all 6 shards
    for i, sample in zip(everywhere, ds.get_many(everywhere)):
        same_sample(sample, without_attributes(full["v2"][i]))
    assert len(access._open) == 2
