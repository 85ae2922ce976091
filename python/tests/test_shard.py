import json

import h5py
import numpy as np
import pytest

from shardflow.format.shard import read_shard
from shardflow.tools.inspect import shard_as_json


def write_shard(path, fmt=1):
    images = np.arange(2 * 2 * 3, dtype=np.float32).reshape(2, 2, 3) / 7
    with h5py.File(path, "w") as f:
        f.attrs["shardflow_format"] = fmt
        f.attrs["dataset"] = "cams"
        f.attrs["version"] = "v1"
        f.attrs["shard_id"] = "cams/v1/lane-00000/shard-000000000000"
        f.attrs["sample_count"] = 2
        f.attrs["spec_fingerprint"] = "abc"
        g = f.create_group("tensors")
        g.create_dataset("image", data=images).attrs["shardflow_dtype"] = "float32"
        g.create_dataset("flag", data=np.array([1, 0], dtype=np.uint8)).attrs["shardflow_dtype"] = "bool"
        f.create_dataset("sample_id", data=np.array([b"s-0", b"s-1"], dtype="S3"))
        f.create_dataset("device_id", data=np.array([b"d", b"d"], dtype="S1"))
        f.create_dataset("produced_at", data=np.array([5, 6], dtype=np.int64))
        f.create_dataset("attributes", data=np.array([b'{"a":"1"}', b"{}"], dtype="S9"))
    return images


def test_should_read_every_field_of_a_shard(tmp_path):
    path = tmp_path / "s.h5"
    images = write_shard(path)
    shard = read_shard(str(path))
    assert len(shard) == 2
    assert shard.sample_ids == ["s-0", "s-1"]
    assert shard.device_ids == ["d", "d"]
    np.testing.assert_array_equal(shard.tensors["image"], images)
    assert shard.tensors["flag"].dtype == np.bool_
    assert shard.tensors["flag"].tolist() == [True, False]
    assert shard.produced_at.tolist() == [5, 6]
    assert shard.attributes == [{"a": "1"}, {}]


def test_should_refuse_an_unknown_format(tmp_path):
    path = tmp_path / "s.h5"
    write_shard(path, fmt=2)
    with pytest.raises(ValueError, match="format 2"):
        read_shard(str(path))


def test_should_print_every_value_exactly_as_json(tmp_path):
    path = tmp_path / "s.h5"
    images = write_shard(path)
    out = json.loads(json.dumps(shard_as_json(str(path))))
    values = np.array(out["tensors"]["image"]["values"], dtype=np.float32).reshape(images.shape)
    np.testing.assert_array_equal(values, images)
    assert out["tensors"]["image"]["shape"] == [2, 2, 3]
