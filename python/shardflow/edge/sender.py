"""The background sender: drains the queue in seq order into the broker and marks an entry done only
once the broker acknowledged it.

librdkafka is set for it (``kafka_settings``): idempotent, ``acks=all``, and ``message.timeout.ms=0``
(never time a message out: a timed-out message may still have been written, and resending it would
break the per-partition order ingest-app's sequence check relies on). What is handed to librdkafka
at once is bounded (``max_in_flight_bytes``). On an error that may leave a gap it stops producing,
waits for what is in flight, and starts again from the first entry not done: everything after it
is resent in order, and ingest-app drops what it already has by (queue id, seq).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

from shardflow.edge import wire
from shardflow.edge.errors import RegistryAccessDenied, RegistryModeMismatch
from shardflow.edge.horizon import ResendHorizon
from shardflow.edge.queue import DurableQueue
from shardflow.edge.reader import QueueReader
from shardflow.edge.registry import RegistryUnavailable
from shardflow.edge.segment import split_payload_view

LOG = logging.getLogger(__name__)
#: errors that only the record itself causes: it can never be delivered, so it is set aside
RECORD_ERRORS = ("MSG_SIZE_TOO_LARGE", "INVALID_RECORD", "CORRUPT_MESSAGE", "RECORD_LIST_TOO_LARGE", "INVALID_MSG_SIZE")


def kafka_settings(bootstrap: str, max_message_bytes: int, overrides: Optional[Dict[str, object]] = None) -> Dict[str, object]:
    settings = {
        "bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "enable.gapless.guarantee": True,
        # the Java client's partitioner: a sample id lands in the same partition from either SDK, so
        # ingest-app's per-partition duplicate checks see both copies
        "partitioner": "murmur2_random",
        "message.timeout.ms": 0, "compression.type": "lz4", "linger.ms": 10, "batch.size": 1 << 20,
        "message.max.bytes": max(max_message_bytes + 4096, 8 << 20),
        "reconnect.backoff.ms": 200, "reconnect.backoff.max.ms": 5000, "retry.backoff.max.ms": 2000,
    }
    settings.update(overrides or {})
    return settings


class Sender:

    def __init__(self, queue: DurableQueue, topic: str, content_id: Callable[[], int],
                 producer_factory: Callable[[], object], max_in_flight_bytes: int = 16 << 20,
                 clock: Callable[[], float] = time.time, monotonic: Callable[[], float] = time.monotonic):
        self._queue = queue
        self._topic = topic
        self._content_id_source = content_id
        self._factory = producer_factory
        self._max_in_flight = max_in_flight_bytes
        self._in_flight: Dict[int, Tuple[int, float]] = {}  # seq -> (bytes, when produced), in seq order
        self._in_flight_bytes = 0
        self._first_produced: Dict[int, float] = {}  # seq -> when this process first produced it, until acknowledged
        self._monotonic = monotonic
        self._horizon = ResendHorizon(queue, queue.settings.resend_horizon, clock, monotonic)
        self._expire_in_flight = False
        self._acked: List[int] = []  # acknowledged since the last poll: marked done together
        self._gap = False
        self._stop = threading.Event()
        self.acknowledged = 0
        self.rejected = 0
        self.last_error: Optional[str] = None
        self.fatal: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name="shardflow-edge-sender", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def in_flight(self) -> int:
        return len(self._in_flight)

    @property
    def expired(self) -> int:
        return self._horizon.expired

    def stop(self, timeout: float) -> None:
        self._stop.set()
        self._queue.notify()
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            content_id = self._await_content_id()
            while content_id is not None and not self._stop.is_set():
                self._session(content_id)
                if not self._stop.is_set():
                    self._stop.wait(1.0)  # after an error that stopped the session: back off, then resend
        except (RegistryModeMismatch, RegistryAccessDenied) as e:
            self.fatal, self.last_error = e, str(e)
            LOG.error("edge sender stopped: %s", e)
        except BaseException as e:  # noqa: B902 - anything else stops delivery, visibly, never silently
            self.fatal, self.last_error = e, f"{type(e).__name__}: {e}"
            LOG.exception("edge sender stopped")

    def _await_content_id(self) -> Optional[int]:
        delay = 0.5
        while not self._stop.is_set():
            try:
                return self._content_id_source()
            except RegistryUnavailable as e:
                self.last_error = str(e)
                LOG.info("edge sender: %s; retrying in %.1f s", e, delay)
                self._stop.wait(delay)
                delay = min(delay * 2, 30.0)
        return None

    def _session(self, content_id: int) -> None:
        """One producer from the first entry not done until stopped or an error may leave a gap."""
        producer = self._factory()
        reader = QueueReader(self._queue, self._queue.done_seq() + 1)
        self._gap = self._expire_in_flight = False
        try:
            while not self._stop.is_set() and not self._gap:
                budget = self._max_in_flight - self._in_flight_bytes
                produced = 0
                while budget > 0 and not self._gap:
                    frame = reader.next(timeout=0 if self._in_flight or produced else 0.05)
                    if frame is None:
                        break
                    key, body = split_payload_view(frame.payload)
                    if not self._horizon.admit(frame, key, body):
                        self._first_produced.pop(frame.seq, None)
                        continue
                    self._produce(producer, frame.seq, key, wire.frame_value(content_id, body))
                    budget -= len(body)
                    produced += 1
                    if produced % 64 == 0:
                        self._poll(producer, 0)
                self._poll(producer, 0.005 if self._in_flight else 0)
                if self._horizon.overdue(self._in_flight):
                    self._expire_in_flight = self._gap = True
        finally:
            # What is in flight is awaited, so a new session never races an old one's deliveries. On
            # stop (or when it is overdue) it is abandoned after a short flush: it stays queued, and
            # the broker holds a prefix of it in each partition, so resending from the first entry
            # not done, in order, is safe: ingest-app drops what it already has.
            while self._in_flight:
                if self._stop.is_set() or self._expire_in_flight:
                    producer.flush(2.0)
                    producer.purge()
                    self._poll(producer, 0)
                    self._in_flight.clear()
                    self._in_flight_bytes = 0
                    break
                self._poll(producer, 0.1)
            self._mark_acked()
            reader.close()

    def _poll(self, producer, timeout: float) -> None:
        producer.poll(timeout)  # runs the delivery callbacks
        self._mark_acked()

    def _mark_acked(self) -> None:
        if self._acked:
            acked, self._acked = self._acked, []
            self._queue.ack_many(acked)

    def _produce(self, producer, seq: int, key: bytes, value: bytes) -> None:
        size = len(value)

        def delivered(err, msg, seq=seq):
            if self._in_flight.pop(seq, None) is not None:
                self._in_flight_bytes -= size
            if err is None:
                self.acknowledged += 1
                self._acked.append(seq)
                self._first_produced.pop(seq, None)
            else:
                self._failed(seq, err, key, value)

        while True:
            try:
                producer.produce(self._topic, value=value, key=key, headers=wire.sequence_headers(self._queue.queue_id, seq),
                                 on_delivery=delivered)
                self._in_flight[seq] = (size, self._first_produced.setdefault(seq, self._monotonic()))
                self._in_flight_bytes += size
                return
            except BufferError:
                self._poll(producer, 0.05)

    def _failed(self, seq: int, err, key: bytes, value: bytes) -> None:
        name = err.name() if hasattr(err, "name") else str(err)
        self.last_error = f"seq {seq}: {name}: {err.str() if hasattr(err, 'str') else err}"
        if name in RECORD_ERRORS and not err.fatal():
            self.rejected += 1
            path = os.path.join(self._queue.directory, "rejected", f"{seq:020d}.record")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(key + b"\n" + value)
            LOG.error("edge sender: the broker refuses sample %s (%s); set aside in %s", key.decode("utf-8", "replace"),
                      name, path)
            self._queue.ack(seq)
            return
        LOG.warning("edge sender: delivery of seq %d failed (%s); resending from the first entry not done", seq,
                    self.last_error)
        self._gap = True


def wait_until_done(queue: DurableQueue, sender: Sender, timeout: Optional[float]) -> int:
    """Waits until every durable entry is done (or the timeout); returns how many are not."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while queue.pending() > 0 and sender.fatal is None:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            break
        time.sleep(min(0.02, left) if left is not None else 0.02)
    return queue.pending()
