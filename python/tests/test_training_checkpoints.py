"""Training checkpoints (shardflow.checkpoints) on a directory-backed store: keys, round trips of
every kind of value, the manifest and its lineage, atomicity rules, the latest step. Not the
commit log's checkpoints (test_checkpoints.py)."""

import hashlib
import io
import json
import os

import numpy as np
import pytest

from conftest import open_dataset
from shardflow import DirectoryStore
from shardflow.checkpoints import (CheckpointCorruptError, CheckpointExistsError, CheckpointNotFoundError,
                                   CheckpointSaveError, Checkpoints, Collective)
from shardflow.checkpoints import layout

torch = pytest.importorskip("torch")


@pytest.fixture
def ckpt(tmp_path):
    return Checkpoints(DirectoryStore(tmp_path / "bucket"), clock=lambda: 1_700_000_000.0,
                       spool_dir=os.fspath(tmp_path))


def test_should_name_steps_so_that_they_sort_and_pointers_so_that_the_newest_comes_first():
    assert layout.manifest_key("r", 42) == "runs/r/step-00000000000000000042/MANIFEST.json"
    assert layout.step_prefix("r", 9) < layout.step_prefix("r", 10) < layout.step_prefix("r", 100)
    assert layout.pointer_key("r", 10) < layout.pointer_key("r", 9)
    assert layout.step_of_pointer("r", layout.pointer_key("r", 12345)) == 12345
    assert layout.step_of_pointer("r", layout.pointer_key("r", 12345).replace("87654", "87655")) is None
    for p in (0, 9, 10, 99, 12345):
        after = layout.after_step("r", p)
        assert layout.step_prefix("r", p) + "zzz/MANIFEST.json" < after < layout.step_prefix("r", p + 1)
    with pytest.raises(ValueError, match="run name"):
        layout.run_prefix("../x")
    with pytest.raises(ValueError, match="step must be"):
        layout.step_prefix("r", -1)


def test_should_round_trip_torch_numpy_bytes_streams_and_files(ckpt, tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(7, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(3, 7)).sum().backward()
    opt.step()
    local = tmp_path / "notes.txt"
    local.write_bytes(b"a local file")
    values = {"model": model.state_dict(), "optim": opt.state_dict(), "rng": torch.get_rng_state(),
              "table": np.arange(12, dtype=np.float16).reshape(3, 4), "raw": b"\x00\x01" * 1000,
              "stream": io.BytesIO(b"from a stream"), "file": local, "view": torch.arange(10)[3:6]}
    manifest = ckpt.save("run-a", 7, values)
    assert [f.kind for f in manifest.files] == ["torch", "torch", "torch", "numpy", "bytes", "bytes", "bytes", "torch"]
    back = ckpt.load("run-a", 7)
    restored = back.load("model")
    assert all(torch.equal(restored[k], v) for k, v in model.state_dict().items())
    assert back.load("optim")["state"][0]["exp_avg"].shape == (5, 7)
    assert torch.equal(back.load("rng"), values["rng"])
    np.testing.assert_array_equal(back.load("table"), values["table"])
    assert back.load("table").dtype == np.float16
    assert back.load("raw") == values["raw"] and back.load("stream") == b"from a stream"
    assert back.load("file") == b"a local file"
    assert back.load("view").tolist() == [3, 4, 5]
    stored = ckpt.store.get(manifest.file("model").key)
    assert torch.load(io.BytesIO(stored)).keys() == model.state_dict().keys(), "a plain torch.load reads the file"
    assert hashlib.sha256(stored).hexdigest() == manifest.file("model").sha256
    assert back.verify() == []


def test_should_write_the_manifest_last_with_sizes_hashes_versions_and_metadata(ckpt):
    events = []
    ckpt._observer = lambda event, **d: events.append((event, d.get("name")))
    manifest = ckpt.save("run-b", 3, {"a": b"1", "b": np.zeros(3)}, metadata={"loss": 0.25})
    assert [e for e, _ in events] == ["save-begin", "file-begin", "file-written", "file-begin", "file-written",
                                      "manifest-written", "pointer-written", "save-done"]
    doc = json.loads(ckpt.store.get(layout.manifest_key("run-b", 3)))
    assert doc["format"] == "shardflow.training-checkpoint/1" and doc["savedAt"] == "2023-11-14T22:13:20.000Z"
    assert doc["metadata"] == {"loss": 0.25} and doc["worldSize"] == 1
    assert doc["frameworks"]["torch"] == str(torch.__version__) and "numpy" in doc["frameworks"]
    assert [(f["name"], f["bytes"]) for f in doc["ranks"][0]["files"]] == [("a", 1), ("b", manifest.file("b").bytes)]


def test_should_record_the_reader_position_and_the_snapshots_it_reads(built, ckpt):
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    data = ShardflowIterableDataset(open_dataset(built), seed=5, shuffle_block=16, rank=0, world_size=1)
    loader = ShardflowDataLoader(data, batch_size=10)
    seen = []
    for i, batch in enumerate(loader):
        seen += batch["sample_id"]
        if i == 4:
            break
    manifest = ckpt.save("run-c", 5, {"m": b"x"}, reader=loader)
    assert manifest.reader_state["consumed"] == 50
    assert [(d.dataset, d.version, d.snapshot_id) for d in manifest.datasets] == [("cams", "v1", 4)]

    fresh = ShardflowIterableDataset(open_dataset(built), seed=5, shuffle_block=16, rank=0, world_size=1)
    fresh_loader = ShardflowDataLoader(fresh, batch_size=7)
    restored = ckpt.resume("run-c", reader=fresh_loader)
    assert restored.step == 5
    rest = [i for batch in fresh_loader for i in batch["sample_id"]]
    assert sorted(seen + rest) == sorted(built.ids), "every sample once: the ones seen before, then the rest"


def test_should_refuse_a_second_save_of_a_step_and_leave_the_first(ckpt):
    ckpt.save("run-d", 1, {"m": b"first"})
    with pytest.raises(CheckpointExistsError, match="already saved"):
        ckpt.save("run-d", 1, {"m": b"second"})
    assert ckpt.load("run-d", 1).load("m") == b"first"


def test_should_find_a_step_whose_save_stopped_between_manifest_and_pointer_and_point_to_it(ckpt):
    ckpt.save("run-e", 1, {"m": b"1"})
    ckpt.save("run-e", 2, {"m": b"2"})
    ckpt.store.delete(layout.pointer_key("run-e", 2))  # as if killed after the manifest
    assert ckpt.index.newest_pointer("run-e") == 1
    assert ckpt.resume("run-e").step == 2
    assert ckpt.index.newest_pointer("run-e") == 2, "resume added the missing pointer"


def test_should_pass_over_steps_without_manifest_and_pointers_without_manifest(ckpt):
    ckpt.save("run-f", 1, {"m": b"1"})
    ckpt.save("run-f", 2, {"m": b"2"})
    partial = layout.file_key("run-f", 3, "0123456789abcdef", 0, "m")
    ckpt.store.put_if_absent(partial, b"half a checkpoint")
    assert ckpt.resume("run-f").step == 2
    ckpt.store.delete(layout.manifest_key("run-f", 2))  # a manifest deleted by hand: the pointer dangles
    assert ckpt.resume("run-f").step == 1
    assert [m.step for m in ckpt.list("run-f")] == [1]
    with pytest.raises(CheckpointNotFoundError, match="no saved step 3"):
        ckpt.load("run-f", 3)
    assert ckpt.resume("no-such-run") is None


def test_should_refuse_to_decode_a_file_that_does_not_match_its_manifest(ckpt):
    manifest = ckpt.save("run-g", 1, {"m": np.arange(100)})
    path = ckpt.store.path(manifest.file("m").key)
    data = bytearray(open(path, "rb").read())
    data[-1] ^= 1
    open(path, "wb").write(bytes(data))
    restored = ckpt.load("run-g", 1)
    with pytest.raises(CheckpointCorruptError, match="failed verification after download"):
        restored.load("m")
    assert len(restored.verify()) == 1


class FakeRanks(Collective):
    """Rank 0 of two, the other rank's contributions given up front (what it would have sent)."""

    def __init__(self, other_state, other_files_error=None):
        self.rank, self.world_size = 0, 2
        self.other_state, self.other_error, self.calls = other_state, other_files_error, 0

    def gather(self, value):
        self.calls += 1
        if self.calls == 1:
            return [value, self.other_state]
        return [value, {"rank": 1, "files": [], "state": self.other_state, "error": self.other_error}]

    def broadcast(self, value):
        return value


def test_should_write_no_manifest_when_a_rank_failed(tmp_path):
    store = DirectoryStore(tmp_path / "bucket")
    ckpt = Checkpoints(store, collective=FakeRanks(None, "rank 1: OSError('disk full')"))
    with pytest.raises(CheckpointSaveError, match="disk full"):
        ckpt.save("run-h", 1, {"m": b"x"})
    assert store.get(layout.manifest_key("run-h", 1)) is None and ckpt.resume("run-h") is None


def test_should_refuse_reader_states_that_are_not_in_lockstep(tmp_path):
    state = {"format": "shardflow.read-state/2", "seed": 1, "epoch": 0, "drop_last": False, "samples": 100,
             "consumed": 20, "sources": [{"dataset": "cams", "version": "v1", "snapshot_id": 4,
                                          "since_snapshot": None, "shuffle_shards": True, "shuffle_block": 8,
                                          "count": 100}]}
    ckpt = Checkpoints(DirectoryStore(tmp_path / "bucket"), collective=FakeRanks(dict(state, consumed=30)))
    with pytest.raises(ValueError, match="not in lockstep"):
        ckpt.save("run-i", 1, {"m": b"x"}, reader=state)
    ckpt = Checkpoints(DirectoryStore(tmp_path / "bucket"), collective=FakeRanks(dict(state, consumed=30)))
    manifest = ckpt.save("run-i", 1, {"m": b"x"}, reader=state, uneven="repeat")
    assert manifest.reader_state["consumed"] == 20 and [r.reader_state["consumed"] for r in manifest.ranks] == [20, 30]


def test_should_stream_torch_values_in_slices_not_whole_tensors():
    from shardflow.checkpoints.torchzip import save_streamed

    class Sizes:
        def __init__(self):
            self.sizes, self.data = [], io.BytesIO()

        def write(self, b):
            self.sizes.append(len(b))
            return self.data.write(b)

        def flush(self):
            pass

    value = {"big": torch.arange(3_000_000, dtype=torch.float32), "small": torch.ones(3)}
    out = Sizes()
    save_streamed(value, out)
    assert max(out.sizes) <= 1 << 20, "no write bigger than one slice"
    assert torch.equal(torch.load(io.BytesIO(out.data.getvalue()))["big"], value["big"])
