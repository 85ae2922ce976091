"""A sync that fails (EIO from fdatasync, injected): the error reaches the caller, what was not
synced is cut, and the queue is intact and usable afterwards, in both durability modes, through
``append``, ``append_many_async`` (send_async's futures) and the producer itself."""

import errno
import os

import numpy as np
import pytest

from shardflow.edge import QueueSettings, QueueWriteError
from shardflow.edge import segment as seg
from shardflow.edge.queue import DurableQueue
from shardflow.edge.reader import QueueReader


class FailingSync:
    """fdatasync that raises EIO on the calls listed in ``fail_on`` (1-based), else syncs."""

    def __init__(self, *fail_on):
        self.fail_on = set(fail_on)
        self.calls = 0

    def __call__(self, fd):
        self.calls += 1
        if self.calls in self.fail_on:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        os.fdatasync(fd)


def entries(q):
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while (frame := reader.next(0)) is not None:
        out.append((frame.seq,) + seg.split_payload(frame.payload))
    reader.close()
    return out


def test_fsync_mode_should_raise_eio_to_the_sender_and_keep_the_queue_usable(tmp_path):
    d = str(tmp_path / "q")
    sync = FailingSync(4)  # the first call syncs the recovered segment at open
    q = DurableQueue(d, QueueSettings(), sync_file=sync)
    assert [q.append(b"a", b"1"), q.append(b"b", b"2")] == [1, 2]
    with pytest.raises(QueueWriteError, match="sync failed") as failure:
        q.append(b"c", b"3")
    assert failure.value.errno == errno.EIO
    assert entries(q) == [(1, b"a", b"1"), (2, b"b", b"2")], "the failed append is not queued; the others are"
    assert q.append(b"d", b"4") == 3, "the queue goes on, and the cut entry's seq is used again (it was never sent)"
    q.close()
    q = DurableQueue(d, QueueSettings())
    assert q.cut_bytes == 0, "no torn tail left on disk"
    assert entries(q) == [(1, b"a", b"1"), (2, b"b", b"2"), (3, b"d", b"4")]
    q.close()


def test_send_async_future_should_fail_with_eio_and_later_ones_succeed(tmp_path):
    sync = FailingSync(3)
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(), sync_file=sync)
    first = q.append_many_async([(b"a", b"1")])[1]
    assert first.result(timeout=5) == 1
    failed = q.append_many_async([(b"b", b"2")])[1]
    with pytest.raises(QueueWriteError) as failure:
        failed.result(timeout=5)
    assert failure.value.errno == errno.EIO
    assert q.append_many_async([(b"c", b"3")])[1].result(timeout=5) == 2
    assert entries(q) == [(1, b"a", b"1"), (2, b"c", b"3")]
    q.close()


def test_process_mode_should_count_the_loss_raise_it_once_and_go_on(tmp_path):
    d = str(tmp_path / "q")
    sync = FailingSync(3)
    q = DurableQueue(d, QueueSettings(durability="process", fsync_interval=0.05), sync_file=sync)
    q.append(b"a", b"1")
    q.request_sync()
    _wait(lambda: q.durable_seq() == 1)
    q.append(b"b", b"2")  # returns at once; its background sync (call 3) fails
    _wait(lambda: q.lost == 1)
    with pytest.raises(QueueWriteError, match="1 entries that send had returned for") as failure:
        q.append(b"c", b"3")
    assert failure.value.errno == errno.EIO
    assert q.append(b"d", b"4") == 2, "reported once; the next append works"
    q.request_sync()
    _wait(lambda: q.durable_seq() == 2)
    assert entries(q) == [(1, b"a", b"1"), (2, b"d", b"4")]
    q.close()
    q = DurableQueue(d, QueueSettings(durability="process"))
    assert q.cut_bytes == 0 and entries(q) == [(1, b"a", b"1"), (2, b"d", b"4")]
    q.close()


def test_a_roll_whose_sync_fails_should_queue_nothing_of_that_call(tmp_path):
    sync = FailingSync(3)  # open, first append, then the roll's sync
    q = DurableQueue(str(tmp_path / "q"), QueueSettings(max_bytes=1 << 20, segment_bytes=8 << 10), sync_file=sync)
    q.append(b"a", b"x" * 6000)
    with pytest.raises(QueueWriteError):
        q.append(b"b", b"y" * 6000)
    assert [s for s, _, _ in entries(q)] == [1]
    assert q.append(b"c", b"z" * 6000) == 2
    assert [k for _, k, _ in entries(q)] == [b"a", b"c"]
    q.close()


def test_producer_should_raise_eio_from_send_and_keep_sending(offline_producer, monkeypatch):
    producer = offline_producer(["x:float32:4"])
    real = os.fdatasync
    failing = {"on": True}

    def fdatasync(fd):
        if failing["on"]:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        real(fd)
    monkeypatch.setattr(os, "fdatasync", fdatasync)
    with pytest.raises(QueueWriteError) as failure:
        producer.send({"x": np.zeros(4, np.float32)}, sample_id="lost")
    assert failure.value.errno == errno.EIO and producer.stats().queued == 0
    failing["on"] = False
    assert producer.send({"x": np.ones(4, np.float32)}, sample_id="kept") == "kept"
    assert producer.stats().queued == 1


def _wait(condition, timeout=5.0):
    import time
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_queue_whose_open_fails_should_release_its_lock(tmp_path):
    d = str(tmp_path / "q")
    q = DurableQueue(d, QueueSettings())
    q.append(b"a", b"1")
    q.close()
    with pytest.raises(OSError) as failure:
        DurableQueue(d, QueueSettings(), sync_file=FailingSync(1))  # the recovered segment cannot be synced
    assert failure.value.errno == errno.EIO
    q = DurableQueue(d, QueueSettings())
    assert entries(q) == [(1, b"a", b"1")]
    q.close()
