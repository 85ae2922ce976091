"""The queue's durability modes (docs/EDGE-QUEUE.md, Durability): what ``append`` waits for, what
the sender may read, when the background syncer syncs, ``send_async``'s futures, and a real
process killed with SIGKILL in each mode keeping every append that returned."""

import os
import random
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from shardflow.edge import QueueSettings
from shardflow.edge import segment as seg
from shardflow.edge.queue import DurableQueue
from shardflow.edge.reader import QueueReader

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class GatedSync:
    """An fdatasync that counts its calls and, while closed, holds every caller until opened."""

    def __init__(self):
        self.calls = 0
        self.open = threading.Event()
        self.open.set()

    def __call__(self, fd):
        self.calls += 1
        assert self.open.wait(10), "a sync was held for 10 s"
        os.fdatasync(fd)


def readable(q):
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while (frame := reader.next(0)) is not None:
        out.append(frame.seq)
    reader.close()
    return out


def test_settings_should_refuse_an_unknown_durability_and_default_the_interval_per_mode():
    with pytest.raises(ValueError, match="durability 'os'"):
        QueueSettings(durability="os").checked()
    assert QueueSettings().checked().fsync_interval == 0.0
    assert QueueSettings(durability="process").checked().fsync_interval == 1.0
    assert QueueSettings(durability="process", fsync_interval=0.2).checked().fsync_interval == 0.2


def test_fsync_mode_should_return_only_after_the_sync(tmp_path):
    gate = GatedSync()
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(), sync_file=gate)
    gate.open.clear()
    returned = threading.Event()
    t = threading.Thread(target=lambda: (q.append(b"k", b"v"), returned.set()))
    t.start()
    assert not returned.wait(0.3), "append returned while its sync was held"
    assert readable(q) == [], "nothing unsynced is readable by the sender"
    gate.open.set()
    assert returned.wait(5)
    t.join()
    assert readable(q) == [1]
    q.close()


def test_process_mode_should_return_before_the_sync_and_sync_within_the_interval(tmp_path):
    gate = GatedSync()
    # An interval of 2 s: long enough that fifty appends finish well inside it on a loaded machine.
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(durability="process", fsync_interval=2.0), sync_file=gate)
    at_open = gate.calls
    started = time.monotonic()
    seqs = [q.append(f"k{i}".encode(), b"v" * 100) for i in range(50)]
    assert time.monotonic() - started < 1.5 and gate.calls == at_open, "appends returned without a sync"
    assert q.pending() == 50, "written entries count as queued"
    assert q.durable_seq() == 0, "but are not synced yet, so the sender does not see them"
    deadline = time.monotonic() + 10
    while q.durable_seq() < seqs[-1] and time.monotonic() < deadline:
        time.sleep(0.01)
    synced_after = time.monotonic() - started
    assert q.durable_seq() == seqs[-1]
    assert 1.5 <= synced_after < 10, f"the background sync came after {synced_after:.2f} s, interval 2 s"
    assert gate.calls - at_open <= 2, "one sync (or two) for fifty appends"
    assert readable(q) == seqs
    q.close()


def test_process_mode_should_sync_at_once_for_a_sender_waiting_for_entries(tmp_path):
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(durability="process", fsync_interval=60))
    q.append(b"k", b"v")
    reader = QueueReader(q, 1)
    started = time.monotonic()
    frame = reader.next(timeout=10)
    assert frame is not None and frame.seq == 1
    assert time.monotonic() - started < 5, "delivery waited for the 60 s interval"
    reader.close()
    q.close()


def test_process_mode_close_should_sync_what_is_only_written(tmp_path):
    d = str(tmp_path / "q")
    gate = GatedSync()
    q = DurableQueue(d, QueueSettings(durability="process", fsync_interval=60), sync_file=gate)
    before = gate.calls
    q.append(b"k", b"v")
    q.close()
    assert gate.calls == before + 1
    q = DurableQueue(d, QueueSettings(durability="process"))
    assert readable(q) == [1] and q.cut_bytes == 0
    q.close()


def test_send_async_futures_should_resolve_once_synced_and_share_syncs(tmp_path):
    gate = GatedSync()
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(), sync_file=gate)
    gate.open.clear()
    futures = [q.append_many_async([(f"k{i}".encode(), b"v" * 1000)])[1] for i in range(200)]
    time.sleep(0.1)
    assert not any(f.done() for f in futures), "no future resolves before its sync"
    calls = gate.calls
    gate.open.set()
    assert [f.result(timeout=10) for f in futures] == list(range(1, 201))
    assert gate.calls - calls < 20, f"{gate.calls - calls} syncs for 200 async appends: they should share"
    q.close()


def test_producer_send_async_should_give_the_sample_id(offline_producer):
    producer = offline_producer(["x:float32:4"])
    futures = [producer.send_async({"x": np.full(4, i, np.float32)}, sample_id=f"s{i}") for i in range(20)]
    assert [f.result(timeout=10) for f in futures] == [f"s{i}" for i in range(20)]
    assert producer.stats().queued == 20


def test_producer_in_process_mode_should_queue_and_report(offline_producer):
    producer = offline_producer(["x:float32:4"], queue=QueueSettings(durability="process", fsync_interval=0.05))
    ids = [producer.send({"x": np.zeros(4, np.float32)}) for _ in range(10)]
    assert len(set(ids)) == 10
    assert producer.stats().queued == 10 and producer.stats().lost == 0


# The children append as fast as the machine lets them and ack slowly: on an idle machine twelve runs in
# "process" durability passed 64 MiB (QueueFull), so the bound is far above what they can write.
CHILD = """
import os, sys
from shardflow.edge.queue import DurableQueue, QueueSettings
directory, journal, durability = sys.argv[1:4]
q = DurableQueue(directory, QueueSettings(max_bytes=1 << 30, segment_bytes=64 << 10, durability=durability,
                                          fsync_interval=0.05))
open(os.path.join(journal, f"ready-{os.getpid()}"), "w").close()
attempts = open(os.path.join(journal, "attempts.log"), "a")
returned = open(os.path.join(journal, "returned.log"), "a")
n = int(sys.argv[4])
acked = q.done_seq()
while True:
    attempts.write(f"{n}\\n"); attempts.flush()
    q.append(f"e-{n}".encode(), bytes([n % 251]) * (1000 + n * 7919 % 9000))
    returned.write(f"{n}\\n"); returned.flush()
    if n % 3 == 0 and acked < q.durable_seq() - 5:
        acked += 1
        q.ack(acked)
    n += 1
"""


def numbers(path):
    with open(path) as f:
        return [int(line) for line in f.read().split("\n")[:-1] if line.strip()]


def _await_returns(journal, child, count):
    """Waits (at most 60 s) until ``count`` more appends have returned than before the call."""
    path = journal / "returned.log"
    before = len(numbers(path)) if path.exists() else 0
    deadline = time.monotonic() + 60
    while (len(numbers(path)) if path.exists() else 0) < before + count:
        assert child.poll() is None, child.stderr.read().decode()
        assert time.monotonic() < deadline, "no append returned within 60 s"
        time.sleep(0.01)


@pytest.mark.parametrize("durability", ["fsync", "process"])
def test_kill9_should_keep_every_returned_append_whole_and_once(tmp_path, durability):
    directory, journal = str(tmp_path / "q"), tmp_path / "journal"
    journal.mkdir()
    rng = random.Random(18)
    for _ in range(12):
        start = max(numbers(journal / "attempts.log"), default=-1) + 1 if (journal / "attempts.log").exists() else 0
        child = subprocess.Popen([sys.executable, "-c", CHILD, directory, str(journal), durability, str(start)],
                                 env=dict(os.environ, PYTHONPATH=PYTHON_DIR), stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not (journal / f"ready-{child.pid}").exists():
            assert child.poll() is None, child.stderr.read().decode()
            assert time.monotonic() < deadline, "the child never opened its queue"
            time.sleep(0.01)
        _await_returns(journal, child, 2)  # each run adds appends that returned, however slow its start and syncs
        time.sleep(rng.uniform(0.05, 0.8))  # somewhere in its appends, syncs, rolls and acks
        assert child.poll() is None, child.stderr.read().decode()
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    returned = numbers(journal / "returned.log")
    attempts = set(numbers(journal / "attempts.log"))
    assert len(returned) > 24, "the kills should land among appends"
    q = DurableQueue(directory, QueueSettings(max_bytes=1 << 30))
    reader = QueueReader(q, q.done_seq() + 1)
    queued = []
    while (frame := reader.next(0)) is not None:
        key, value = seg.split_payload(frame.payload)
        n = int(key.decode()[2:])
        assert value == bytes([n % 251]) * (1000 + n * 7919 % 9000), f"entry e-{n} whole"
        queued.append(n)
    reader.close()
    assert q.corrupt == 0
    assert len(set(queued)) == len(queued), "no entry twice"
    assert set(queued) <= attempts, "nothing that was never appended"
    oldest = queued[0] if queued else float("inf")
    assert {n for n in returned if n >= oldest} <= set(queued), "every returned append after the oldest kept is there"
    q.close()
