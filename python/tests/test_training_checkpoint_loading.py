"""Loading a torch checkpoint file straight into its tensors (shardflow.checkpoints.torchload):
records split across parts at any boundary, zip64 records, a file laid out by plain torch.save
(loaded through a temporary file instead), and a damaged file (refused, whichever path)."""

import io
import logging

import pytest

from shardflow import DirectoryStore
from shardflow.checkpoints import CheckpointCorruptError, Checkpoints
from shardflow.checkpoints import torchload, torchzip
from shardflow.checkpoints.manifest import SavedFile

torch = pytest.importorskip("torch")


def state():
    g = torch.Generator().manual_seed(3)
    model = {f"layer{i}.weight": torch.randn(i + 1, 7, generator=g) for i in range(12)}
    model.update({"empty": torch.zeros(0), "ints": torch.arange(1000, dtype=torch.int64), "half": torch.ones(5).half(),
                  "shared_a": torch.arange(10.0), "nested": {"step": 4, "lr": [0.1, 0.01]}})
    model["shared_b"] = model["shared_a"][2:5]  # a view of the same storage: saved once
    return model


def same(a, b):
    assert a.keys() == b.keys()
    for k, v in a.items():
        if isinstance(v, torch.Tensor):
            assert v.dtype == b[k].dtype and torch.equal(v, b[k]), k
        else:
            assert v == b[k], k


@pytest.mark.parametrize("part_size", [97, 1000, 1 << 20])
def test_should_load_every_record_whatever_the_part_boundaries(tmp_path, part_size, caplog):
    ckpt = Checkpoints(DirectoryStore(tmp_path), part_size=part_size, parallelism=3)
    value = state()
    ckpt.save("r", 1, {"model": value})
    with caplog.at_level(logging.INFO):
        back = ckpt.load("r", 1).load("model")
    assert "temporary file" not in caplog.text, "loaded straight into the tensors"
    same(back, value)
    back["shared_b"][0] = -1
    assert back["shared_a"][2] == -1, "views of one storage still share it"


def test_should_load_records_written_with_zip64_extras(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(torchzip, "ZIP64_FROM", 100)
    monkeypatch.setattr(torchload, "ZIP64_FROM", 100)
    ckpt = Checkpoints(DirectoryStore(tmp_path), part_size=256, parallelism=2)
    value = state()
    ckpt.save("r", 1, {"model": value})
    with caplog.at_level(logging.INFO):
        same(ckpt.load("r", 1).load("model"), value)
    assert "temporary file" not in caplog.text
    assert torch.load(io.BytesIO(ckpt.store.get(ckpt.load("r", 1).manifest.file("model").key)))["ints"].sum() == 499500


def test_should_fall_back_to_a_temporary_file_for_a_plain_torch_save_file(tmp_path, caplog):
    ckpt = Checkpoints(DirectoryStore(tmp_path), part_size=512, parallelism=2)
    value = state()
    plain = io.BytesIO()
    torch.save(value, plain)
    manifest = ckpt.save("r", 1, {"model": plain.getvalue()})
    saved = manifest.file("model")
    as_torch = SavedFile(saved.name, "torch", saved.key, saved.bytes, saved.sha256)
    with pytest.raises(torchload.LayoutMismatch):
        torchload.load_direct(ckpt.store, as_torch, 512, 2, None)
    restored = ckpt.load("r", 1)
    restored.manifest = restored.manifest.__class__(**{**restored.manifest.__dict__, "ranks": (
        restored.manifest.ranks[0].__class__(0, (as_torch,), None),)})
    with caplog.at_level(logging.INFO):
        same(restored.load("model"), value)
    assert "temporary file" in caplog.text


def test_should_refuse_a_damaged_torch_file_before_building_anything(tmp_path):
    store = DirectoryStore(tmp_path)
    ckpt = Checkpoints(store, part_size=1000, parallelism=2)
    manifest = ckpt.save("r", 1, {"model": state()})
    path = store.path(manifest.file("model").key)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 3] ^= 0x10  # inside a tensor's bytes
    open(path, "wb").write(bytes(data))
    with pytest.raises(CheckpointCorruptError, match="after download"):
        ckpt.load("r", 1).load("model")
