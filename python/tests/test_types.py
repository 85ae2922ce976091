"""New dtypes, string/bytes, free-shape and image tensors: spec parsing, shard reading, torch batching."""

import io
import json

import numpy as np
import pytest

from shardflow import DatasetSpec, DirectoryStore, TensorSpec
from shardflow.errors import FormatError
from shardflow.format.shard import read_shard
from shardflow.format.spec import parse_spec
from shardflow.tools.testing import DatasetWriter, shard_file_bytes

PIL = pytest.importorskip("PIL.Image", reason="Pillow is not installed (Debian: apt-get install python3-pil)")

SPEC = DatasetSpec("det", "v1", (
    TensorSpec("half", "float16", (3,)), TensorSpec("brain", "bfloat16", (2,)), TensorSpec("u16", "uint16", ()),
    TensorSpec("u32", "uint32", (2,)), TensorSpec("u64", "uint64", ()), TensorSpec("caption", "string", ()),
    TensorSpec("blob", "bytes", ()), TensorSpec("boxes", "float32", (None, 4), (64, None)),
    TensorSpec("tokens", "int32", (None,)), TensorSpec("frame", "bytes", (), None, "image/png")), None, "t", "d")


def png(h, w, seed):
    pixels = np.random.default_rng(seed).integers(0, 256, size=(h, w, 3), dtype=np.uint8)
    out = io.BytesIO()
    PIL.fromarray(pixels).save(out, format="PNG")
    return pixels, out.getvalue()


def rows(n):
    out = []
    for i in range(n):
        pixels, encoded = png(4 + i, 5, i)
        out.append({"sample_id": f"s-{i}", "half": np.array([0.5, -2, 1000], dtype=np.float16) * (i + 1) / 8,
                    "brain": np.array([0x3F80 + i, 0xC000], dtype=np.uint16), "u16": 65535 - i,
                    "u32": np.array([4294967295, i], dtype=np.uint32), "u64": np.uint64(2**64 - 1 - i),
                    "caption": "ü 日本 😀" * i, "blob": bytes(range(i * 3)),
                    "boxes": np.arange(i * 4, dtype=np.float32).reshape(i, 4), "tokens": np.arange(i + 2, dtype=np.int32),
                    "frame": encoded, "pixels": pixels})
    return out


def test_should_parse_free_dimensions_encodings_and_compression_from_spec_json():
    text = json.dumps({"formatVersion": 1, "name": "det", "version": "v1", "labelTensor": None, "compression": "lzf",
                       "tensors": [{"name": "boxes", "dtype": "float32", "shape": [None, 4], "maxShape": [64, None]},
                                   {"name": "frame", "dtype": "bytes", "shape": [], "encoding": "image/jpeg"},
                                   {"name": "b", "dtype": "bfloat16", "shape": [2]}]}).encode()
    spec = parse_spec(text, "spec.json")
    assert spec.compression == "lzf"
    assert spec.tensor("boxes").variable and spec.tensor("boxes").shape_text() == "?<=64x4"
    assert spec.tensor("frame").encoding == "image/jpeg"
    assert spec.tensor("b").numpy_dtype == np.uint16
    # the same fingerprint rule as the Java side (DatasetSpec.canonicalLayout)
    assert "".join(t.fingerprint_line() for t in spec.tensors) == "boxes:float32:?<=64x4\nframe:bytes:image/jpeg\nb:bfloat16:2\n"
    bad = json.loads(text)
    bad["tensors"][0]["dtype"] = "float8"
    with pytest.raises(FormatError, match="float8"):
        parse_spec(json.dumps(bad).encode(), "spec.json")


def test_should_read_each_variable_row_with_its_own_shape(tmp_path):
    written = rows(5)
    shard = read_shard(shard_file_bytes(SPEC, "det/v1/lane-00000/shard-000000000000", written))
    for i, row in enumerate(written):
        assert shard.tensors["half"].dtype == np.float16
        np.testing.assert_array_equal(shard.tensors["half"][i], row["half"])
        assert int(shard.tensors["u64"][i]) == 2**64 - 1 - i
        assert shard.tensors["caption"][i] == row["caption"]
        assert shard.tensors["blob"][i] == row["blob"]
        assert shard.tensors["boxes"][i].shape == (i, 4)
        np.testing.assert_array_equal(shard.tensors["tokens"][i], row["tokens"])
    assert shard.encodings == {"frame": "image/png"}


def test_should_give_torch_bfloat16_decoded_images_and_padded_or_listed_ragged_batches(tmp_path):
    torch = pytest.importorskip("torch")
    from shardflow import Dataset
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    store = DirectoryStore(tmp_path / "bucket")
    writer = DatasetWriter(store, SPEC)
    writer.create()
    written = rows(4)
    writer.commit([writer.put_shard(0, 0, written)[0]])
    ds = Dataset("s3://unit-tests", "det", "v1", s3=store, cache_dir=str(tmp_path / "cache"))

    padded = next(iter(ShardflowDataLoader(ShardflowIterableDataset(ds, shuffle_block=0), batch_size=4)))
    listed = next(iter(ShardflowDataLoader(ShardflowIterableDataset(ds, shuffle_block=0), batch_size=4, ragged="list")))

    assert padded["brain"].dtype == torch.bfloat16
    expected_brain = torch.from_numpy(np.stack([r["brain"] for r in written]).astype(np.int16)).view(torch.bfloat16)
    assert torch.equal(padded["brain"], expected_brain)
    assert padded["half"].dtype == torch.float16
    assert padded["u64"].dtype == torch.int64 and padded["u16"].tolist() == [65535, 65534, 65533, 65532]
    assert padded["boxes"].shape == (4, 3, 4) and padded["boxes_shape"].tolist() == [[0, 4], [1, 4], [2, 4], [3, 4]]
    assert [t.shape[0] for t in listed["boxes"]] == [0, 1, 2, 3]
    assert padded["caption"] == [r["caption"] for r in written]
    frames = listed["frame"]
    for i, row in enumerate(written):
        assert frames[i].dtype == torch.uint8
        assert torch.equal(frames[i], torch.from_numpy(row["pixels"]))


def test_should_print_variable_tensors_as_json(tmp_path):
    from shardflow.tools.inspect import shard_as_json

    path = tmp_path / "shard.h5"
    path.write_bytes(shard_file_bytes(SPEC, "det/v1/lane-00000/shard-000000000000", rows(3)))
    out = json.loads(json.dumps(shard_as_json(str(path))))
    assert out["tensors"]["caption"]["values"] == ["", "ü 日本 😀", "ü 日本 😀ü 日本 😀"]
    assert out["tensors"]["boxes"]["shapes"] == [[0, 4], [1, 4], [2, 4]]
    assert out["tensors"]["half"]["dtype"] == "float16"
