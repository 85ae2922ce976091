"""``EdgeProducer``: check a sample against the spec, make it durable on the device, deliver it later.

    with EdgeProducer("cams", "v1", bootstrap="broker:9092", registry="http://registry:8080/apis/registry/v3",
                      queue_dir="/var/lib/cam/queue", device_id="cam-7", spec="spec.json") as producer:
        sample_id = producer.send({"image": frame}, labels=3, metadata={"site": "north"})

``send`` returns once the sample is on the device's disk (``QueueSettings.durability``: synced, or
written to the OS and synced within ``fsync_interval``); ``send_async`` returns at once with a
future that resolves once the sample is synced. A background sender delivers what is synced when
the broker is reachable and deletes it only once the broker acknowledged it. The sample id is fixed at
``send`` and stored with the sample, and every queued record carries the queue's id and the entry's
seq, so whatever is sent twice (what was in flight at a crash) is dropped by ingest-app: each
sample is in the dataset once (docs/ARCHITECTURE.md § 1).
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from shardflow.edge import broker_limit, registry as registry_mod, wire
from shardflow.edge.registry_auth import RegistryAuth
from shardflow.edge.errors import DeliveryStopped, ProducerClosed, SampleRejected, SampleTooLarge
from shardflow.edge.queue import DurableQueue, QueueSettings
from shardflow.edge.sender import Sender, kafka_settings, wait_until_done
from shardflow.edge.spec_check import NAME, Limits, check_attributes, check_text, pack_tensors
from shardflow.edge.spec_source import SpecLike, load_spec

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class EdgeStats:
    queued: int  # on disk, not yet acknowledged (in flight included)
    in_flight: int  # handed to the Kafka client, not yet acknowledged
    acknowledged: int  # acknowledged by the broker since this producer started
    bytes_on_disk: int
    dropped: int  # removed by the drop_oldest policy since start
    corrupt: int  # unreadable on disk (counted, skipped) since start
    rejected: int  # refused by the broker for their own sake, set aside in queue_dir/rejected
    last_error: Optional[str]
    lost: int = 0  # returned by send in durability "process", then cut by a failed sync (see QueueSettings)
    expired: int = 0  # maybe sent before and queued longer ago than resend_horizon: set aside in queue_dir/expired


class EdgeProducer:

    def __init__(self, dataset: str, version: str, *, bootstrap: str, registry: str, queue_dir: str, device_id: str,
                 spec: Optional[SpecLike] = None, tensors: Optional[Sequence[str]] = None, label: Optional[str] = None,
                 topic: str = "samples", queue: QueueSettings = QueueSettings(),
                 kafka_config: Optional[Mapping[str, Any]] = None, registry_id_mode: str = registry_mod.ID_MODE,
                 registry_auth: RegistryAuth = None, registry_ca_bundle: Optional[str] = None,
                 registry_auto_register: bool = True, max_message_bytes: Optional[int] = None, limits: Limits = Limits(),
                 clock: Callable[[], float] = time.time, producer_factory: Optional[Callable[[], Any]] = None):
        """``spec``: the dataset version's spec.json (path, bytes, dict or DatasetSpec), or ``tensors``
        (``name:dtype[:shape]`` texts) and ``label``. ``kafka_config``: librdkafka settings over the
        SDK's (security.protocol, sasl.*, ssl.*, or compression.type=zstd). ``registry_auth``: a
        (user, password) pair or ``OAuth2ClientCredentials``; ``registry_ca_bundle``: the registry's CA
        (PEM); ``load_registry_config(path)`` reads both from the Java services' properties keys.
        ``registry_auto_register=False``: look the schema up, never register it (a read-only device).
        Raises RegistryModeMismatch before anything else for an id mode ingest-app cannot read, and
        RegistryAccessDenied when a reachable registry refuses the credentials or the principal."""
        registry_mod.check_configuration(registry, registry_id_mode)
        for field, value in (("dataset", dataset), ("version", version)):
            if not isinstance(value, str) or not NAME.fullmatch(value):
                raise ValueError(f"{field} {value!r} is not a valid name ({NAME.pattern})")
        self.dataset, self.version = dataset, version
        self.device_id = check_text("device_id", device_id, limits.max_id_chars, "ID_TOO_LONG")
        self._spec = load_spec(spec, dataset, version, label, tensors)
        self._limits = limits
        self._clock = clock
        self._registry = registry_mod.RegistryClient(registry, topic, auth=registry_auth, ca_bundle=registry_ca_bundle,
                                                     auto_register=registry_auto_register)
        self._check_registry_if_reachable()
        settings = kafka_settings(bootstrap, max_message_bytes or broker_limit.DEFAULT_MAX_MESSAGE_BYTES,
                                  dict(kafka_config or {}))
        self._queue = DurableQueue(queue_dir, queue, clock)
        try:
            self._limit = broker_limit.resolve(queue_dir, topic, max_message_bytes)
            if max_message_bytes is None and "remembered" not in self._limit.source:
                threading.Thread(target=self._probe_limit, args=(queue_dir, topic, dict(settings)), daemon=True,
                                 name="shardflow-edge-limit").start()
            factory = producer_factory or _confluent_factory(settings)
            self._sender = Sender(self._queue, topic, self._registry.content_id, factory, clock=clock)
            self._sender.start()
        except BaseException:
            self._queue.close()
            raise
        self._closed = False
        if self._queue.cut_bytes:
            LOG.info("edge queue %s: cut %d bytes of torn tail at start", queue_dir, self._queue.cut_bytes)

    def _probe_limit(self, queue_dir: str, topic: str, settings: Dict[str, Any]) -> None:
        found = broker_limit.probe(queue_dir, topic, settings)
        if found is not None:
            self._limit = found

    def _check_registry_if_reachable(self) -> None:
        """Refuses to start on a registry whose framing ingest-app would not read; offline, the
        sender checks once it can reach it, and sends nothing before."""
        try:
            self._registry.check_version()
            self._registry.check_access()
        except registry_mod.RegistryUnavailable as e:
            LOG.info("edge producer: registry not reachable at start (%s); it is checked before the first delivery", e)

    # ---- sending --------------------------------------------------------------------------------

    def send(self, tensors: Mapping[str, Any], labels: Any = None, metadata: Optional[Mapping[str, Any]] = None,
             sample_id: Optional[str] = None, produced_at: Optional[float] = None) -> str:
        """Checks the sample, queues it durably and returns its id. Raises SampleRejected (nothing
        queued), QueueFull, or QueueWriteError (disk full: nothing queued, the queue intact)."""
        return self.send_many([dict(tensors=tensors, labels=labels, metadata=metadata, sample_id=sample_id,
                                    produced_at=produced_at)])[0]

    def send_many(self, samples: Sequence[Mapping[str, Any]]) -> List[str]:
        """Several samples with one disk sync; each a dict of ``send``'s arguments. All are checked
        before any is queued, and all are queued or none."""
        entries = self._checked_entries(samples)
        self._queue.append_many(entries)
        return [key.decode("utf-8") for key, _ in entries]

    def send_async(self, tensors: Mapping[str, Any], labels: Any = None, metadata: Optional[Mapping[str, Any]] = None,
                   sample_id: Optional[str] = None, produced_at: Optional[float] = None) -> "Future[str]":
        """Checks and writes the sample and returns at once a future of its id, which resolves once the
        sample is synced (on stable storage, as ``send`` in durability "fsync"): one thread can have
        many sends in flight and they share syncs. What ``send`` raises for the sample itself
        (SampleRejected, QueueFull, a failed write) is raised here; a failed sync fails the future
        with QueueWriteError, and that sample was not queued."""
        entries = self._checked_entries([dict(tensors=tensors, labels=labels, metadata=metadata, sample_id=sample_id,
                                              produced_at=produced_at)])
        return self._queue.append_many_async(entries, result=entries[0][0].decode("utf-8"))[1]

    def _checked_entries(self, samples: Sequence[Mapping[str, Any]]):
        if self._closed:
            raise ProducerClosed("send after close")
        self._raise_if_stopped()
        return [(sid.encode("utf-8"), body) for sid, body in (self._encode(**s) for s in samples)]

    def _encode(self, tensors: Mapping[str, Any], labels: Any = None, metadata: Optional[Mapping[str, Any]] = None,
                sample_id: Optional[str] = None, produced_at: Optional[float] = None):
        spec = self._spec.spec
        tensors = dict(tensors)
        if labels is not None:
            if spec.label_tensor is None:
                raise SampleRejected("UNEXPECTED_TENSOR", f"labels given but {spec.name}/{spec.version} has no label tensor")
            if spec.label_tensor in tensors:
                raise SampleRejected("INVALID_FIELD", f"label tensor {spec.label_tensor!r} given twice (tensors and labels)")
            tensors[spec.label_tensor] = labels
        sample_id = sample_id if sample_id is not None else uuid.uuid4().hex
        check_text("sample_id", sample_id, self._limits.max_id_chars, "ID_TOO_LONG")
        packed = pack_tensors(spec, tensors, self._spec.allow_non_finite, self._limits, self._spec.max_sample_bytes)
        attributes = check_attributes(metadata, self._limits)
        at_ms = round((produced_at if produced_at is not None else self._clock()) * 1000)
        body = wire.encode_sample(self.dataset, self.version, sample_id, self.device_id, at_ms, packed, attributes)
        key = sample_id.encode("utf-8")
        if not self._limit.fits(len(key), wire.framed_size(len(body))):
            size = len(key) + wire.framed_size(len(body)) + broker_limit.RECORD_OVERHEAD_BYTES
            raise SampleTooLarge(f"sample {sample_id} makes a record of {size} bytes; {self._limit.source} is "
                                 f"{self._limit.max_message_bytes}", self._limit.max_message_bytes)
        return sample_id, body

    # ---- delivery -------------------------------------------------------------------------------

    def flush(self, timeout: Optional[float] = None) -> int:
        """Waits until everything queued is acknowledged; returns how many entries are still queued
        (0: all delivered). Raises DeliveryStopped if the sender stopped on an error, and
        QueueWriteError once if a background sync failed (durability "process", ``stats().lost``)."""
        self._queue.request_sync()
        remaining = wait_until_done(self._queue, self._sender, timeout)
        self._queue.take_sync_failure()
        self._raise_if_stopped()
        return remaining

    def _raise_if_stopped(self) -> None:
        if self._sender.fatal is not None:
            raise DeliveryStopped(f"edge sender stopped: {self._sender.last_error}") from self._sender.fatal

    def stats(self) -> EdgeStats:
        q = self._queue
        return EdgeStats(q.pending(), self._sender.in_flight, self._sender.acknowledged, q.bytes_on_disk(), q.dropped,
                         q.corrupt, self._sender.rejected, self._sender.last_error, lost=q.lost,
                         expired=self._sender.expired)

    @property
    def queue_id(self) -> str:
        return self._queue.queue_id

    def close(self, timeout: float = 10.0) -> None:
        """Delivers what it can within ``timeout`` and stops; what is left stays queued for next time."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._sender.fatal is None:
                self._queue.request_sync()
                wait_until_done(self._queue, self._sender, timeout)
        finally:
            self._sender.stop(timeout=10.0)
            self._queue.close()

    def __enter__(self) -> "EdgeProducer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _confluent_factory(settings: Dict[str, Any]) -> Callable[[], Any]:
    def create():
        from confluent_kafka import Producer
        # librdkafka's own log lines go to Python logging, not to stderr
        return Producer({**settings, "logger": logging.getLogger("shardflow.edge.librdkafka")})
    return create
