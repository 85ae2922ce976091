"""The reader on a dataset written by the real ingest-app and shard-sink into a real S3 server."""

import hashlib
import os
from collections import Counter

import pytest

from conftest import check_values
from shardflow import ChecksumError, Dataset, S3Store, ShardCache
from shardflow.format.layout import checkpoint_id_of, checkpoint_prefix
from shardflow.reading.fetch import ShardFetcher
from shardflow.reading.log import find_checkpoint, read_entries
from shardflow.tools.testing import DatasetWriter, rows_for


class RecordingS3Store(S3Store):
    def __init__(self, bucket, settings):
        super().__init__(bucket, settings)
        self.listed = []

    def list_keys(self, prefix, start_after=None, limit=None):
        self.listed.append(prefix)
        return super().list_keys(prefix, start_after, limit)


def test_should_pin_the_committed_snapshot_with_every_published_sample_reading_only_the_log(expected, tmp_path):
    probe = Dataset(expected["uri"], expected["dataset"], expected["version"], cache_dir=tmp_path)
    store = RecordingS3Store(probe.store.bucket, probe.store.settings)
    ds = Dataset(expected["uri"], expected["dataset"], expected["version"], s3=store, cache_dir=tmp_path / "cache")
    assert ds.snapshot_id == expected["snapshotId"]
    assert len(ds) == len(expected["samples"]) == sum(s.sample_count for s in ds.shards)
    assert ds.spec.label_tensor == "label" and ds.spec.tensor("image").shape == (3, 8, 8)
    ids = [s["sample_id"] for s in ds.samples(shuffle_block=0)]
    assert Counter(ids) == Counter(list(expected["samples"]))
    prefix = f"datasets/{expected['dataset']}/{expected['version']}/"
    assert set(store.listed) <= {prefix + "log/", prefix + "checkpoints/"}, store.listed


def test_should_read_the_checkpoints_the_pipeline_wrote_exactly_as_the_log_entries(dataset, expected):
    name, version = expected["dataset"], expected["version"]
    keys = list(dataset.store.list_keys(checkpoint_prefix(name, version)))
    ids = sorted(checkpoint_id_of(name, version, k) for k in keys)
    assert ids and None not in ids, f"shard-sink writes a checkpoint every 10 commits; found {keys}"
    for checkpoint_id in ids:
        from_checkpoint = find_checkpoint(dataset.store, name, version, checkpoint_id)
        assert from_checkpoint is not None and from_checkpoint.snapshot_id == checkpoint_id
        from_entries = tuple(s for e in read_entries(dataset.store, name, version, 1, checkpoint_id)
                             for s in e.added_shards)
        assert from_checkpoint.shards == from_entries


def test_should_read_every_sample_exactly_once_per_epoch_across_2_ranks_x_2_workers_with_the_published_values(
        dataset, expected):
    torch = pytest.importorskip("torch")
    from shardflow.integrations.torch import ShardflowIterableDataset

    for epoch in (0, 1):
        seen = []
        for rank in (0, 1):
            data = ShardflowIterableDataset(dataset, seed=7, shuffle_block=50, rank=rank, world_size=2)
            data.set_epoch(epoch)
            for batch in torch.utils.data.DataLoader(data, batch_size=32, num_workers=2):
                assert batch["image"].shape[1:] == (3, 8, 8) and batch["label"].dtype == torch.int64
                for row, sample_id in enumerate(batch["sample_id"]):
                    check_values(expected, sample_id, batch["image"][row].numpy(), batch["label"][row],
                                 batch["produced_at"][row], batch["device_id"][row])
                seen += batch["sample_id"]
        assert Counter(seen) == Counter(list(expected["samples"])), f"epoch {epoch}"


def test_should_resume_mid_epoch_with_exactly_the_remaining_samples(dataset, expected):
    pytest.importorskip("torch")
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    data = ShardflowIterableDataset(dataset, seed=3, shuffle_block=40, rank=0, world_size=1)
    data.set_epoch(2)
    head = []
    for k, batch in enumerate(ShardflowDataLoader(data, batch_size=16, num_workers=2)):
        head += batch["sample_id"]
        if k == 6:
            break
    state = data.state_dict()
    resumed = ShardflowIterableDataset(dataset, seed=3, shuffle_block=40, rank=0, world_size=1)
    resumed.load_state_dict(state)
    rest = [i for batch in ShardflowDataLoader(resumed, batch_size=16, num_workers=2) for i in batch["sample_id"]]
    assert len(head) == 7 * 16
    assert Counter(head + rest) == Counter(list(expected["samples"]))


def test_should_detect_a_corrupted_cached_file_and_download_it_afresh(dataset):
    dataset.cache.reverify_after = 0  # every read checks (by default not twice within a minute)
    shard = dataset.shards[0]
    good = dataset.read_shard(shard)
    cached = dataset.cache.path_for(shard)
    assert os.path.getsize(cached) == shard.bytes
    with open(cached, "r+b") as f:
        f.seek(shard.bytes // 2)
        byte = f.read(1)
        f.seek(shard.bytes // 2)
        f.write(bytes([byte[0] ^ 0x01]))
    with pytest.raises(ChecksumError, match=shard.shard_id) as caught:
        dataset.read_shard(shard)
    assert caught.value.expected_sha256 == shard.sha256 and not os.path.exists(cached)
    assert dataset.read_shard(shard).sample_ids == good.sample_ids
    assert dataset.cache.stats.downloads == 2


def test_should_write_create_only_on_the_real_server(dataset, expected):
    key = f"datasets/{expected['dataset']}/{expected['version']}/spec.json"
    assert dataset.store.put_if_absent(key, b"{}") is False, "an existing object is never overwritten"
    assert dataset.store.get(key) != b"{}"


def test_should_take_in_a_snapshot_committed_to_the_real_log_at_the_next_epoch_with_follow(dataset, expected):
    pytest.importorskip("torch")
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    writer = DatasetWriter(dataset.store, dataset.spec, committer="python-integration-test")
    data = ShardflowIterableDataset(dataset, seed=1, shuffle_block=20, follow=True)
    loader = ShardflowDataLoader(data, batch_size=16, num_workers=2)
    seen, committed = [], {}
    for batch in loader:
        seen += batch["sample_id"]
        if not committed:  # mid-epoch: the epoch stays on the snapshot it started on
            rows = rows_for(dataset.spec, range(900_000, 900_020), device="python-it")
            committed["ids"] = [r["sample_id"] for r in rows]
            committed["snapshot"] = writer.add([(99_999, 0, rows)])
    assert committed["snapshot"] == expected["snapshotId"] + 1
    assert Counter(seen) == Counter(list(expected["samples"]))
    data.set_epoch(1)
    assert Counter(i for batch in loader for i in batch["sample_id"]) == \
        Counter(list(expected["samples"]) + committed["ids"])
    assert data.state_dict()["sources"][0]["snapshot_id"] == expected["snapshotId"] + 1


def test_should_reassemble_every_shard_from_parallel_ranged_gets_on_the_real_server(dataset, expected, tmp_path):
    fetcher = ShardFetcher(ShardCache(tmp_path / "ranged"), dataset.store, depth=3, range_size=4096,
                           range_threshold=1)
    try:
        shards = list(dataset.shards)
        for k, shard in enumerate(shards):
            fetcher.schedule(shards[k:k + 4])
            data = fetcher.get(shard)
            assert bytes(data) == dataset.store.get(shard.object_key), shard.shard_id
            assert hashlib.sha256(data).hexdigest() == shard.sha256
    finally:
        fetcher.close()
    seen = []
    for s in dataset.samples(shuffle_block=7, prefetch=3, range_size=4096, range_threshold=1):
        check_values(expected, s["sample_id"], s["image"], s["label"], s["produced_at"], s["device_id"])
        seen.append(s["sample_id"])
    assert Counter(seen) == Counter(list(expected["samples"]))
