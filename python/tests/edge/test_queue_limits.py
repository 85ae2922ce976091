"""The queue at its bound (each policy as documented) and on a full disk: a real tmpfs of 1 MiB
mounted for the test (root only; elsewhere the test is skipped, saying why)."""

import os
import subprocess
import threading
import time

import pytest

from shardflow.edge.errors import QueueFull, QueueWriteError
from shardflow.edge.queue import DurableQueue, QueueSettings
from shardflow.edge.reader import QueueReader

VALUE = b"v" * 4000


def settings(policy, **kw):
    return QueueSettings(max_bytes=64 << 10, segment_bytes=16 << 10, policy=policy, **kw)


def fill(q, n):
    return [q.append(f"k{i}".encode(), VALUE) for i in range(n)]


def seqs_readable(q):
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while (frame := reader.next(0)) is not None:
        out.append(frame.seq)
    reader.close()
    return out


def test_reject_should_raise_queue_full_naming_the_bound_and_keep_what_it_has(tmp_path):
    q = DurableQueue(str(tmp_path / "q"), settings("reject"))
    queued = []
    with pytest.raises(QueueFull, match="max_bytes 65536 .policy reject"):
        while True:
            queued.append(q.append(b"k", VALUE))
    assert q.bytes_on_disk() <= 64 << 10
    assert seqs_readable(q) == queued
    q.close()


def test_drop_oldest_should_keep_the_newest_within_the_bound_and_count_what_it_dropped(tmp_path):
    q = DurableQueue(str(tmp_path / "q"), settings("drop_oldest"))
    seqs = fill(q, 100)  # ~400 KB into a 64 KiB queue: a long outage
    kept = seqs_readable(q)
    assert q.bytes_on_disk() <= 64 << 10
    assert kept == seqs[-len(kept):], "the newest entries, contiguous, in order"
    assert q.dropped == 100 - len(kept) and q.dropped > 0
    assert q.pending() == len(kept)
    q.close()
    q = DurableQueue(str(tmp_path / "q"), settings("drop_oldest"))
    assert seqs_readable(q) == kept, "the drops are durable: nothing dropped comes back after a restart"
    q.close()


def test_block_should_wait_for_the_sender_then_go_on(tmp_path):
    q = DurableQueue(str(tmp_path / "q"), settings("block", block_timeout=10))
    seqs = []
    while q.bytes_on_disk() + 4100 <= 64 << 10:
        seqs.append(q.append(b"k", VALUE))

    def sender_comes_back():
        time.sleep(0.5)
        for s in seqs:
            q.ack(s)
    sender = threading.Thread(target=sender_comes_back)
    sender.start()
    started = time.monotonic()
    q.append(b"late", VALUE)
    assert 0.4 < time.monotonic() - started < 9
    sender.join()
    assert q.bytes_on_disk() <= 64 << 10
    q.close()


def test_block_should_raise_queue_full_after_its_timeout(tmp_path):
    q = DurableQueue(str(tmp_path / "q"), settings("block", block_timeout=0.3))
    with pytest.raises(QueueFull, match="policy block"):
        fill(q, 100)
    q.close()


@pytest.fixture
def tiny_disk(tmp_path):
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a 1 MiB tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    yield str(mount)
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_disk_full_should_fail_the_send_and_leave_the_queue_intact(tiny_disk):
    directory = os.path.join(tiny_disk, "q")
    q = DurableQueue(directory, QueueSettings(max_bytes=64 << 20, segment_bytes=256 << 10))
    queued = []
    with pytest.raises(QueueWriteError, match="cannot write|sync failed") as failure:
        for i in range(1000):
            queued.append(q.append(f"k{i}".encode(), VALUE))
    assert failure.value.errno == 28  # ENOSPC, reported to the caller, no crash
    assert len(queued) > 100
    assert seqs_readable(q) == queued, "every acknowledged send is there, nothing of the failed one"
    q.close()
    q = DurableQueue(directory, QueueSettings(max_bytes=64 << 20, segment_bytes=256 << 10))
    assert q.cut_bytes == 0, "no torn tail: the failed write was taken back"
    assert seqs_readable(q) == queued
    for s in queued[:200]:
        q.ack(s)  # the sender drains: whole segments go, space comes back
    assert q.append(b"after", VALUE) == queued[-1] + 1
    q.close()
