import json

import numpy as np
import pytest

from conftest import SPEC, open_dataset
from shardflow import FormatError, S3Settings, ShardflowError, SnapshotNotFoundError, TensorSpec, load_snapshot
from shardflow.format.layout import commit_key
from shardflow.format.spec import fingerprint
from shardflow.storage.store import open_store
from shardflow.tools.testing import expected_tensor


def test_should_compute_the_fingerprint_format_md_gives():
    value = fingerprint([TensorSpec("image", "float32", (3, 32, 32)), TensorSpec("label", "int64", ())])
    assert value.startswith("7cbfe05a") and value.endswith("c89e9a6")


def test_should_pin_the_latest_snapshot_and_expose_spec_shards_and_length(built):
    ds = open_dataset(built)
    assert ds.snapshot_id == 4
    assert len(ds) == len(built.ids) == 151
    assert len(ds.shards) == 11
    assert [s.snapshot_id for s in ds.shards] == [1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4]
    assert ds.spec.label_tensor == "label" and ds.label_tensor == "label"
    assert ds.spec.tensor("image").shape == (3, 4, 4) and ds.spec.tensor("image").numpy_dtype == np.float32
    assert ds.spec.fingerprint == SPEC.fingerprint


def test_should_pin_an_older_snapshot_when_asked(built):
    ds = open_dataset(built, snapshot=2)
    assert ds.snapshot_id == 2 and len(ds.shards) == 5 and len(ds) == 12 + 7 + 23 + 5 + 16
    assert open_dataset(built).at(1).shards == ds.shards[:3]


def test_should_find_newer_snapshots_on_refresh(built):
    ds = open_dataset(built)
    assert ds.refresh() == []
    built.add_snapshot([(0, 3)])
    built.add_snapshot([(1, 4)])
    assert ds.snapshot_id == 4, "the pin holds until refresh"
    assert ds.refresh() == [5, 6]
    assert ds.snapshot_id == 6 and len(ds) == 151 + 7


def test_should_list_only_the_log_and_checkpoints_never_the_shards_prefix(built):
    built.store.listed.clear()
    ds = open_dataset(built)
    ids = [s["sample_id"] for s in ds.samples()]
    ds.refresh()
    assert sorted(ids) == sorted(built.ids)
    assert "datasets/cams/v1/log/" in built.store.listed, "the latest snapshot is found by listing log/"
    assert set(built.store.listed) <= {"datasets/cams/v1/log/", "datasets/cams/v1/checkpoints/"}, built.store.listed


def test_should_return_every_value_that_was_written(built):
    ds = open_dataset(built)
    by_id = {s["sample_id"]: s for s in ds.samples(attributes=True)}
    for n in (0, 77, 150):
        s = by_id[f"s-{n:06d}"]
        for t in SPEC.tensors:
            assert s[t.name].dtype == t.numpy_dtype and s[t.name].shape == t.shape
            np.testing.assert_array_equal(s[t.name], expected_tensor(t, n))
        assert s["produced_at"] == 1_700_000_000_000 + n
        assert s["device_id"] == "test-device"
        assert s["attributes"] == {"n": str(n)}


def test_should_refuse_a_commit_entry_of_an_unknown_format_version(built):
    path = built.store.path(commit_key("cams", "v1", 2))
    entry = json.load(open(path))
    entry["formatVersion"] = 3
    json.dump(entry, open(path, "w"))
    with pytest.raises(FormatError, match="formatVersion 3"):
        open_dataset(built)


def test_should_report_a_gap_in_the_log(built):
    import os

    os.unlink(built.store.path(commit_key("cams", "v1", 3)))
    with pytest.raises(FormatError, match="entry 4 where 3 was expected"):
        open_dataset(built)


def test_should_refuse_a_snapshot_that_does_not_exist(built):
    with pytest.raises(SnapshotNotFoundError, match="snapshot 9 of cams/v1"):
        open_dataset(built, snapshot=9)
    with pytest.raises(SnapshotNotFoundError):
        load_snapshot(built.store, "cams", "v1", 5)


def test_should_name_the_dataset_when_it_does_not_exist(built):
    from shardflow import Dataset

    with pytest.raises(ShardflowError, match="dataset cams/v9 does not exist"):
        Dataset("s3://unit-tests", "cams", "v9", s3=built.store)


def test_should_take_s3_settings_from_arguments_then_shardflow_then_aws_variables(monkeypatch):
    for name in ("SHARDFLOW_S3_ENDPOINT", "SHARDFLOW_S3_ACCESS_KEY", "SHARDFLOW_S3_SECRET_KEY", "SHARDFLOW_S3_REGION",
                 "SHARDFLOW_S3_SECRET_KEY_FILE", "SHARDFLOW_S3_SESSION_TOKEN", "SHARDFLOW_S3_CA_BUNDLE",
                 "AWS_SESSION_TOKEN", "AWS_CA_BUNDLE",
                 "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "aws-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
    monkeypatch.setenv("SHARDFLOW_S3_ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setenv("SHARDFLOW_S3_ACCESS_KEY", "sf-key")
    store = open_store("s3://bucket", {"secret_key": "given"})
    assert store.bucket == "bucket"
    assert store.settings == S3Settings("http://127.0.0.1:9", "sf-key", "given", None)
    with pytest.raises(ValueError, match="bucket root"):
        open_store("s3://bucket/some/prefix")
    with pytest.raises(ValueError, match="unknown s3 settings"):
        open_store("s3://bucket", {"endpoint_url": "x"})


def test_should_take_the_secret_from_a_file_honour_session_tokens_and_trust_the_ca_bundle(monkeypatch, tmp_path):
    secret = tmp_path / "s3-secret"
    secret.write_text("file-secret\n")
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    for name in ("SHARDFLOW_S3_SECRET_KEY", "SHARDFLOW_S3_SESSION_TOKEN", "SHARDFLOW_S3_CA_BUNDLE", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    env = {"SHARDFLOW_S3_ENDPOINT": "https://127.0.0.1:9", "SHARDFLOW_S3_ACCESS_KEY": "ak",
           "SHARDFLOW_S3_SECRET_KEY_FILE": str(secret), "AWS_SESSION_TOKEN": "session-secret",
           "SHARDFLOW_S3_CA_BUNDLE": str(ca)}

    settings = S3Settings.from_env(env)

    assert settings.secret_key == "file-secret"
    assert settings.session_token == "session-secret"
    assert settings.ca_bundle == str(ca)
    assert "file-secret" not in repr(settings) and "session-secret" not in repr(settings)
    client = open_store("s3://bucket", {"secret_key": settings.secret_key, "session_token": settings.session_token,
                                        "ca_bundle": settings.ca_bundle, "endpoint": settings.endpoint,
                                        "access_key": "ak"}).client
    credentials = client._request_signer._credentials
    assert (credentials.access_key, credentials.secret_key, credentials.token) == ("ak", "file-secret", "session-secret")
    assert client._endpoint.http_session._verify == str(ca)
