"""``shardflow-edge import``: image folders, .npy/.npz files and an index, labels from folder names;
killed with SIGKILL mid-run (a real process) and started again, every file is queued exactly once."""

import csv
import os
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from shardflow.edge import segment as seg
from shardflow.edge.importer import list_items
from shardflow.edge.queue import DurableQueue
from shardflow.edge.reader import QueueReader
from shardflow.edge.wire import decode_sample

PIL = pytest.importorskip("PIL.Image")
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OFFLINE = ["--bootstrap", "127.0.0.1:9", "--registry", "http://127.0.0.1:9/apis/registry/v3", "--flush-timeout", "0"]


def image_tree(root, classes=("cat", "dog", "owl"), per_class=5):
    for c in classes:
        os.makedirs(root / c, exist_ok=True)
        for i in range(per_class):
            PIL.fromarray(np.full((4, 4, 3), i * 10, np.uint8)).save(root / c / f"{i:04d}.png")
    return root


def queued(queue_dir):
    q = DurableQueue(str(queue_dir))
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while (frame := reader.next(0)) is not None:
        key, body = seg.split_payload(frame.payload)
        out.append((key.decode(), decode_sample(body)))
    reader.close()
    q.close()
    return out


def run_import(*args):
    return subprocess.Popen([sys.executable, "-m", "shardflow.edge.cli", "import", *map(str, args)],
                            env=dict(os.environ, PYTHONPATH=PYTHON_DIR), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_should_label_images_by_folder_and_queue_them_as_the_spec_says(tmp_path):
    tree = image_tree(tmp_path / "images")
    done = run_import(tree, "--dataset", "pets", "--version", "v1", "--tensor", "image:bytes:image/png", "--tensor", "label:int64",
                      "--label", "label", "--device-id", "importer", "--queue-dir", tmp_path / "q", *OFFLINE)
    out, err = done.communicate(timeout=120)
    assert done.returncode == 1, err  # queued, not delivered: no broker here
    entries = queued(tmp_path / "q")
    assert len(entries) == 15
    labels = {}
    for _, sample in entries:
        folder = sample["attributes"]["source"].split(os.sep)[0]
        label = int(np.frombuffer(sample["tensors"][1]["data"], "<i8")[0])
        labels.setdefault(folder, set()).add(label)
        assert sample["tensors"][0]["data"][:8] == b"\x89PNG\r\n\x1a\n"
    assert labels == {"cat": {0}, "dog": {1}, "owl": {2}}


def test_should_import_npy_npz_and_an_index(tmp_path):
    data = tmp_path / "arrays"
    os.makedirs(data / "3")
    np.save(data / "3" / "a.npy", np.ones((2, 2), np.float32))
    np.savez(data / "b.npz", x=np.zeros((2, 2), np.float32), label=np.int64(1))
    with open(data / "index.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["path", "label", "site"])
        w.writerow(["3/a.npy", "7", "north"])
    items = list_items(str(data), str(data / "index.csv"))
    assert [(i.rel, i.label, i.attributes) for i in items] == [(os.path.join("3", "a.npy"), "7", {"site": "north"})]
    done = run_import(data, "--index", data / "index.csv", "--dataset", "arr", "--version", "v1", "--tensor", "x:float32:2x2",
                      "--tensor", "label:int64", "--label", "label", "--device-id", "d", "--queue-dir", tmp_path / "q", *OFFLINE)
    done.communicate(timeout=120)
    (key, sample), = queued(tmp_path / "q")
    assert int(np.frombuffer(sample["tensors"][1]["data"], "<i8")[0]) == 7
    assert sample["attributes"]["site"] == "north"


def test_should_queue_every_file_once_across_kill9_and_restarts(tmp_path):
    tree = image_tree(tmp_path / "images", classes=("a", "b"), per_class=300)
    args = [tree, "--dataset", "pets", "--version", "v1", "--tensor", "image:bytes:image/png", "--tensor", "label:int64",
            "--label", "label", "--device-id", "importer", "--queue-dir", tmp_path / "q", "--batch", "8", *OFFLINE]
    # Kill times scale with how long a whole import takes on this machine, so every kill lands mid-import.
    started = time.monotonic()
    scratch = run_import(*[tmp_path / "scratch" if a == tmp_path / "q" else a for a in args])
    scratch.communicate(timeout=300)
    whole = time.monotonic() - started
    rng = random.Random(7)
    killed = 0
    for _ in range(6):
        child = run_import(*args)
        time.sleep(rng.uniform(0.15, 0.6) * whole)
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
            killed += 1
        child.wait()
    assert killed >= 2, f"only {killed} of 6 runs were still importing when killed"
    last = run_import(*args)
    _, err = last.communicate(timeout=120)
    assert last.returncode == 1, err
    ids = [key for key, _ in queued(tmp_path / "q")]
    expected = {i.sample_id for i in list_items(str(tree))}
    assert len(ids) == len(set(ids)), "a file queued twice"
    assert set(ids) == expected
