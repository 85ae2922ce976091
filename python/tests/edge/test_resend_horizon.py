"""The resend horizon (docs/EDGE-QUEUE.md): an entry that may have reached the broker before is sent
again only within ``resend_horizon`` of its queue time; past it, it is set aside in ``expired/``
and counted, never sent; an entry never produced is sent whatever its age. Clocks are injected:
a device that comes back days later is a clock moved on, not a wait."""

import os
import time

import numpy as np

from shardflow.edge import EdgeProducer, QueueSettings
from shardflow.edge.queue import ATTEMPT_STRIDE, DurableQueue

from .offline import OFFLINE

DAY = 86400.0
T0 = 1_800_000_000.0


class Clock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


class RecordingProducer:
    """A Kafka client that takes every record (seqs in ``produced``) and acknowledges them on poll
    only while ``acks`` is set: a broker that took them but whose answers never came back."""

    def __init__(self, acks):
        self.acks = acks
        self.produced = []
        self._pending = []

    def produce(self, topic, value, key, headers, on_delivery):
        self.produced.append(int(dict(headers)["shardflow.seq"]))
        self._pending.append(on_delivery)

    def poll(self, timeout=0):
        if self.acks:
            pending, self._pending = self._pending, []
            for callback in pending:
                callback(None, None)
        else:
            time.sleep(min(timeout, 0.01))
        return 0

    def flush(self, timeout=0):
        return self.poll(0)

    def purge(self):
        self._pending = []


def producer(queue_dir, clock, client, monotonic=None):
    p = EdgeProducer("edge", "v1", queue_dir=queue_dir, device_id="dev", tensors=["x:float32:2"], clock=clock,
                     producer_factory=lambda: client, queue=QueueSettings(resend_horizon=7 * DAY), **OFFLINE)
    p._sender._content_id_source = lambda: 1  # no registry in these tests
    if monotonic is not None:
        p._sender._monotonic = p._sender._horizon._monotonic = monotonic
    return p


def wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def in_flight_at_crash(queue_dir, clock, n=5):
    """n samples sent and produced, the broker's answers lost, then the process gone."""
    client = RecordingProducer(acks=False)
    p = producer(queue_dir, clock, client)
    for i in range(n):
        p.send({"x": np.full(2, i, np.float32)}, sample_id=f"s{i}")
    wait_for(lambda: len(client.produced) == n)
    p.close(timeout=0)
    return client


def test_should_resend_what_was_in_flight_when_the_device_is_back_within_the_horizon(tmp_path):
    clock = Clock(T0)
    in_flight_at_crash(str(tmp_path / "q"), clock)
    clock.now = T0 + 6 * DAY
    client = RecordingProducer(acks=True)
    with producer(str(tmp_path / "q"), clock, client) as p:
        assert p.flush(10) == 0
        assert client.produced == [1, 2, 3, 4, 5], "resent: ingest-app still knows the queue and drops them"
        assert p.stats().expired == 0
    assert not os.path.exists(tmp_path / "q" / "expired")


def test_should_set_aside_what_was_in_flight_and_send_what_never_was_after_the_horizon(tmp_path):
    d, clock = str(tmp_path / "q"), Clock(T0)
    in_flight_at_crash(d, clock)
    q = DurableQueue(d, QueueSettings(), clock)  # queued while offline, by a process that never reached the sender
    later = [q.append(f"later-{i}".encode(), b"v") for i in range(ATTEMPT_STRIDE + 3)]
    q.close()
    clock.now = T0 + 8 * DAY
    client = RecordingProducer(acks=True)
    with producer(d, clock, client) as p:
        assert p.flush(10) == 0
        assert client.produced == later, "in flight 8 days ago: not sent again; never produced: sent, however old"
        expired = p.stats().expired
    assert expired == 5
    names = sorted(os.listdir(tmp_path / "q" / "expired"))
    assert names[:5] == [f"{s:020d}.record" for s in range(1, 6)]
    with open(tmp_path / "q" / "expired" / names[0], "rb") as f:
        assert f.read().startswith(b"s0\n"), "the record kept whole: key, newline, value"


def test_should_set_aside_entries_in_flight_longer_than_the_horizon_in_one_session(tmp_path):
    clock, ticks = Clock(T0), Clock(1000.0)
    client = RecordingProducer(acks=False)
    with producer(str(tmp_path / "q"), clock, client, monotonic=ticks) as p:
        for i in range(3):
            p.send({"x": np.zeros(2, np.float32)}, sample_id=f"s{i}")
        wait_for(lambda: len(client.produced) == 3)
        clock.now, ticks.now = T0 + 8 * DAY, 1000.0 + 8 * DAY  # no answer from the broker for 8 days
        wait_for(lambda: p.stats().expired == 3)
        assert client.produced == [1, 2, 3], "never produced again"
        assert p.stats().queued == 0
        p.send({"x": np.zeros(2, np.float32)}, sample_id="fresh")
        wait_for(lambda: client.produced[-1] == 4)


def test_should_set_aside_a_maybe_sent_entry_when_the_clock_is_behind_its_queue_time(tmp_path):
    clock = Clock(T0)
    in_flight_at_crash(str(tmp_path / "q"), clock, n=2)
    clock.now = T0 - 3 * DAY  # a device without a battery-backed clock, before it synced its time
    client = RecordingProducer(acks=True)
    with producer(str(tmp_path / "q"), clock, client) as p:
        wait_for(lambda: p.stats().expired == 2)
        assert client.produced == []


def test_a_queue_from_before_the_attempted_mark_should_count_everything_as_maybe_sent(tmp_path):
    d = str(tmp_path / "q")
    q = DurableQueue(d, QueueSettings())
    q.append(b"k", b"v")
    q.append(b"k2", b"v")
    q.close()
    os.remove(os.path.join(d, "attempted"))
    q = DurableQueue(d, QueueSettings())
    assert q.attempted_seq() == 2
    q.close()
    fresh = DurableQueue(str(tmp_path / "fresh"), QueueSettings())
    assert fresh.attempted_seq() == 0
    fresh.close()
