"""The Python edge SDK against the real pipeline (broker, registry, S3 server, ingest-app and
shard-sink as processes), driven by integration-tests' PythonEdgeProducerTest, which runs ingest-app
with a 2-second dedupe window and stops and restarts the broker while the crash test runs.

Environment: SHARDFLOW_BOOTSTRAP_SERVERS, SHARDFLOW_REGISTRY_URL, SHARDFLOW_S3_ENDPOINT / _ACCESS_KEY /
_SECRET_KEY, SHARDFLOW_EDGE_IT_WORK (a work folder), SHARDFLOW_EDGE_IT_CONTROL (files exchanged with
the Java side, once per crash test: ``outages-on``, ``outages-off`` written here; ``broker-stable``
written there once the broker is up for good; then all three removed here, ``outages-on`` first).
"""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from shardflow import Dataset
from shardflow.errors import ObjectNotFoundError, SnapshotNotFoundError
from shardflow.edge import EdgeProducer, QueueSettings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import edge_child  # noqa: E402

KILLS = int(os.environ.get("SHARDFLOW_EDGE_IT_KILLS", "20"))  # per durability; scripts/test.sh --long: 100
FSYNC_SYSCALLS = {"74", "75"}  # x86_64 fsync, fdatasync


@pytest.fixture(scope="module")
def env():
    if "SHARDFLOW_EDGE_IT_WORK" not in os.environ:
        pytest.skip("run from integration-tests' PythonEdgeProducerTest (it starts the stack)")
    return dict(work=os.environ["SHARDFLOW_EDGE_IT_WORK"], control=os.environ["SHARDFLOW_EDGE_IT_CONTROL"],
                bootstrap=os.environ["SHARDFLOW_BOOTSTRAP_SERVERS"], registry=os.environ["SHARDFLOW_REGISTRY_URL"])


def producer(env, queue_dir, device, bootstrap=None, registry=None):
    return EdgeProducer("edge", "v1", bootstrap=bootstrap or env["bootstrap"], registry=registry or env["registry"],
                        queue_dir=queue_dir, device_id=device, tensors=edge_child.TENSORS, label="label",
                        max_message_bytes=(1 << 20) + (64 << 10), queue=QueueSettings(max_bytes=64 << 20))


def dataset_rows(device):
    """(sample id -> list of rows) of one device in the latest snapshot, read with the project's reader."""
    ds = Dataset("s3://shardflow", "edge", "v1", cache_dir=False)
    rows = {}
    for s in ds.samples(shuffle_shards=False):
        if s["device_id"] == device:
            rows.setdefault(s["sample_id"], []).append(s)
    return rows


def await_rows(device, wanted, timeout=240):
    """Rows once every wanted id is in and nothing new arrived for a few seal ages."""
    deadline, last, stable_since = time.monotonic() + timeout, None, time.monotonic()
    while time.monotonic() < deadline:
        try:
            rows = dataset_rows(device)
        except (SnapshotNotFoundError, ObjectNotFoundError):  # no snapshot yet; anything else is a failure
            rows = {}
        count = sum(len(r) for r in rows.values())
        if count != last:
            last, stable_since = count, time.monotonic()
        if wanted <= rows.keys() and time.monotonic() - stable_since > 8:
            return rows
        time.sleep(1)
    missing = sorted(wanted - rows.keys())
    raise AssertionError(f"{len(missing)} samples never reached the dataset, e.g. {missing[:10]}")


def check_row(row, n):
    tensors, label = edge_child.sample(n)
    np.testing.assert_array_equal(np.asarray(row["image"]), tensors["image"], err_msg=row["sample_id"])
    assert int(row["label"]) == label, row["sample_id"]


def test_should_publish_the_golden_sample_as_edge_client_does(env):
    """PythonEdgeProducerTest published the same sample with edge-client first and compares the two records."""
    with producer(env, os.path.join(env["work"], "golden-queue"), "golden-device") as p:
        p.send({"image": np.arange(192, dtype=np.float32).reshape(3, 8, 8) * np.float32(0.01)}, labels=3,
               metadata={"b": "2", "a": "1"}, sample_id="golden-it", produced_at=1_700_000_000.123)
        assert p.flush(60) == 0


def test_should_drop_a_resend_that_comes_long_after_the_dedupe_window(env):
    queue = os.path.join(env["work"], "resend-queue")
    ids = [f"resend-{n}" for n in range(50)]
    offline = producer(env, queue, "resend-device", bootstrap="127.0.0.1:9", registry="http://127.0.0.1:9/apis/registry/v3")
    for n, sid in enumerate(ids):
        tensors, label = edge_child.sample(n)
        offline.send(tensors, labels=label, sample_id=sid)
    offline.close(timeout=0)
    shutil.copytree(queue, queue + ".before-delivery")  # what a device holds when its acks are lost
    with producer(env, queue, "resend-device") as p:
        assert p.flush(60) == 0
    time.sleep(6)  # three dedupe windows of broker time
    shutil.rmtree(queue)
    shutil.copytree(queue + ".before-delivery", queue)
    with producer(env, queue, "resend-device") as p:
        assert p.flush(60) == 0, "every entry resent after the 'outage'"
        assert p.stats().acknowledged == 50
        tensors, label = edge_child.sample(50)
        p.send(tensors, labels=label, sample_id="resend-50")
        assert p.flush(60) == 0
    rows = await_rows("resend-device", set(ids) | {"resend-50"})
    assert {sid: len(r) for sid, r in rows.items() if len(r) != 1} == {}
    assert sorted(rows) == sorted(ids + ["resend-50"])
    for sid, (row,) in rows.items():
        check_row(row, int(sid.split("-")[1]))


def syscalls(pid):
    found = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                found.add(f.read().split(" ", 1)[0].strip())
    except OSError:
        pass
    return found


def in_flight(journal):
    try:
        with open(os.path.join(journal, "stats.json")) as f:
            return json.load(f)["in_flight"]
    except (OSError, ValueError):
        return 0


@pytest.mark.parametrize("durability", ["fsync", "process"])
def test_should_put_every_returned_sample_in_the_dataset_exactly_once_across_kill9_and_broker_outages(env, durability):
    """In durability "process" a send returns once the sample is written to the OS: a kill -9 must
    lose none of those either (a power cut may; that is not what this test does)."""
    queue, journal = os.path.join(env["work"], f"crash-queue-{durability}"), os.path.join(env["work"], f"crash-journal-{durability}")
    os.makedirs(journal, exist_ok=True)
    device = f"crash-{durability}"
    rng = random.Random(int(os.environ.get("SHARDFLOW_EDGE_IT_SEED", "18")))
    open(os.path.join(env["control"], "outages-on"), "w").close()
    kills, in_fsync, in_delivery, log = [], 0, 0, open(os.path.join(env["work"], "children.log"), "ab")
    child_cmd = [sys.executable, os.path.join(HERE, "edge_child.py"), queue, journal]
    child_env = dict(os.environ, EDGE_CHILD_DURABILITY=durability)
    while len(kills) < KILLS:
        if os.path.exists(os.path.join(journal, "stats.json")):
            os.remove(os.path.join(journal, "stats.json"))  # the last child's figures
        child = subprocess.Popen(child_cmd, stdout=log, stderr=log, env=child_env)
        ready_by = time.monotonic() + 90  # Python, numpy and the client's start on a loaded machine
        while not os.path.exists(os.path.join(journal, f"ready-{child.pid}")):
            assert child.poll() is None, f"the producing process exited at start ({child.returncode}); see children.log"
            assert time.monotonic() < ready_by, "the producing process never opened its queue"
            time.sleep(0.02)
        time.sleep(rng.uniform(0.2, 2.5))
        assert child.poll() is None, f"the producing process exited by itself ({child.returncode}); see children.log"
        # one kill in three waits (up to 2 s) for a thread inside fsync/fdatasync, one in three for
        # records in flight; the rest land wherever the random delay ended
        target = len(kills) % 3
        deadline = time.monotonic() + 2.0
        while True:
            doing, flying = syscalls(child.pid), in_flight(journal)
            if target == 0 or time.monotonic() > deadline or (target == 1 and doing & FSYNC_SYSCALLS) \
                    or (target == 2 and flying > 0):
                break
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        kills.append((sorted(doing), flying))
        in_fsync += bool(doing & FSYNC_SYSCALLS)
        in_delivery += flying > 0
    open(os.path.join(env["control"], "outages-off"), "w").close()
    deadline = time.monotonic() + 120
    while not os.path.exists(os.path.join(env["control"], "broker-stable")):
        assert time.monotonic() < deadline, "the broker never came back for the final delivery"
        time.sleep(0.5)
    for name in ("outages-on", "outages-off", "broker-stable"):  # in this order: the Java side waits for a next round
        os.remove(os.path.join(env["control"], name))
    attempts = edge_child.numbers(os.path.join(journal, "attempts.log"))
    returned = edge_child.numbers(os.path.join(journal, "returned.log"))
    final = subprocess.run(child_cmd + [str(max(attempts) + 1)], stdout=subprocess.PIPE, stderr=log, timeout=300, env=child_env)
    assert final.returncode == 0, f"the last run could not deliver the queue: {final.stdout!r}"
    print(f"durability {durability}: {len(kills)} kills, {in_fsync} with a thread in fsync/fdatasync, {in_delivery} with records in flight; "
          f"{len(returned)} sends returned, {len(attempts) - len(returned)} were cut short by the kill")
    least = max(3, KILLS // 10)
    assert in_fsync >= least and in_delivery >= least, "the kills should land during a sync and during delivery"

    rows = await_rows(device, {f"crash-{n}" for n in returned})
    doubled = {sid: len(r) for sid, r in rows.items() if len(r) != 1}
    assert doubled == {}, f"samples in the dataset more than once: {list(doubled.items())[:10]}"
    strangers = set(rows) - {f"crash-{n}" for n in attempts}
    assert strangers == set()
    for sid, (row,) in rows.items():
        check_row(row, int(sid.split("-")[1]))  # whole and right: nothing half-present
    cut_short_in = len(set(rows) - {f"crash-{n}" for n in returned})
    print(f"dataset ({durability}): {len(rows)} crash samples, each once; {cut_short_in} of the cut-short sends made it in whole")
