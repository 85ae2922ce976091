"""Fixtures for the tests on data written by the real pipeline.

integration-tests' PythonReaderTest starts a real Kafka broker, Apicurio registry and S3 server,
runs ingest-app and shard-sink, publishes samples, waits for them to be committed, stops the
services and runs these tests with:

- ``SHARDFLOW_S3_ENDPOINT``, ``SHARDFLOW_S3_ACCESS_KEY``, ``SHARDFLOW_S3_SECRET_KEY``: the S3 server;
- ``SHARDFLOW_IT_EXPECTED``: a JSON file with the dataset (``uri``, ``dataset``, ``version``,
  ``snapshotId``) and, per published sample id, what was published (``image`` values, ``label``,
  ``producedAt``, ``deviceId``).

Run by hand (with a stack and such a file) they work the same; without the file they are skipped.
"""

import json
import os

import numpy as np
import pytest

from shardflow import Dataset


@pytest.fixture(scope="session")
def expected():
    path = os.environ.get("SHARDFLOW_IT_EXPECTED")
    if not path:
        pytest.skip("SHARDFLOW_IT_EXPECTED is not set: these tests run from integration-tests' PythonReaderTest")
    with open(path) as f:
        data = json.load(f)
    for sample in data["samples"].values():
        sample["image"] = np.asarray(sample["image"], dtype=np.float32)
    return data


@pytest.fixture
def dataset(expected, tmp_path):
    return Dataset(expected["uri"], expected["dataset"], expected["version"], snapshot=expected["snapshotId"],
                   cache_dir=tmp_path / "cache")


def check_values(expected, sample_id, image, label, produced_at, device_id):
    want = expected["samples"][sample_id]
    image = np.asarray(image)
    assert image.dtype == np.float32, sample_id
    np.testing.assert_array_equal(image.reshape(-1), want["image"], err_msg=sample_id)
    assert int(label) == want["label"], sample_id
    assert int(produced_at) == want["producedAt"], sample_id
    assert device_id == want["deviceId"], sample_id
