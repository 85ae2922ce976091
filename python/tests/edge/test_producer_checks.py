"""What ``send`` refuses (nothing queued, a clear error), the registry id-mode refusal at start, and
the policies through the producer while the broker is unreachable for the whole test."""

import http.server
import json
import threading

import numpy as np
import pytest

from shardflow.edge import (EdgeProducer, QueueFull, QueueSettings, RegistryModeMismatch, SampleRejected,
                            SampleTooLarge)
from .offline import OFFLINE, SilentProducer

TENSORS = ["image:float32:3x4x4", "label:int64"]
IMAGE = np.zeros((3, 4, 4), np.float32)


@pytest.mark.parametrize("tensors, labels, reason", [
    ({"image": IMAGE.astype(np.float64)}, 1, "DTYPE_MISMATCH"),
    ({"image": np.zeros((3, 4, 5), np.float32)}, 1, "SHAPE_MISMATCH"),
    ({"image": IMAGE}, None, "MISSING_TENSOR"),
    ({"image": IMAGE, "extra": IMAGE}, 1, "UNEXPECTED_TENSOR"),
    ({"image": np.full((3, 4, 4), np.nan, np.float32)}, 1, "NON_FINITE_VALUE"),
    ({"image": IMAGE}, 1.5, "DTYPE_MISMATCH"),
])
def test_should_refuse_a_sample_off_the_spec_and_queue_nothing(offline_producer, tensors, labels, reason):
    producer = offline_producer(TENSORS, label="label")
    with pytest.raises(SampleRejected) as refused:
        producer.send(tensors, labels=labels)
    assert refused.value.reason == reason
    assert producer.stats().queued == 0


def test_should_refuse_bad_ids_and_attributes(offline_producer):
    producer = offline_producer(TENSORS, label="label")
    for kwargs, reason in [(dict(sample_id="a\nb"), "INVALID_FIELD"), (dict(sample_id="x" * 257), "ID_TOO_LONG"),
                           (dict(metadata={f"k{i}": "v" for i in range(33)}), "TOO_MANY_ATTRIBUTES"),
                           (dict(metadata={"k": "v" * 257}), "ATTRIBUTE_VALUE_TOO_LONG")]:
        with pytest.raises(SampleRejected) as refused:
            producer.send({"image": IMAGE}, labels=1, **kwargs)
        assert refused.value.reason == reason
    assert producer.stats().queued == 0


def test_should_refuse_a_record_over_the_brokers_limit_naming_it(offline_producer):
    producer = offline_producer(["blob:bytes"], max_message_bytes=3000)
    producer.send({"blob": b"x" * 2000})
    with pytest.raises(SampleTooLarge, match="max_message_bytes as configured is 3000") as refused:
        producer.send({"blob": b"x" * 3000})
    assert refused.value.limit == 3000
    assert producer.stats().queued == 1


def test_should_refuse_to_start_with_another_id_mode_or_a_v2_registry(tmp_path):
    with pytest.raises(RegistryModeMismatch, match="contentId"):
        EdgeProducer("edge", "v1", queue_dir=str(tmp_path / "a"), device_id="d", tensors=TENSORS,
                     registry_id_mode="globalId", **{**OFFLINE})
    with pytest.raises(RegistryModeMismatch, match="2.x"):
        EdgeProducer("edge", "v1", queue_dir=str(tmp_path / "b"), device_id="d", tensors=TENSORS,
                     **{**OFFLINE, "registry": "http://127.0.0.1:9/apis/registry/v2"})


def test_should_refuse_to_start_on_a_registry_that_is_not_apicurio_3(tmp_path):
    class Registry2(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"name": "Apicurio Registry", "version": "2.6.13.Final"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", 0), Registry2)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(RegistryModeMismatch, match="Apicurio 2.6.13.Final"):
            EdgeProducer("edge", "v1", queue_dir=str(tmp_path / "q"), device_id="d", tensors=TENSORS, producer_factory=SilentProducer,
                         **{**OFFLINE, "registry": f"http://127.0.0.1:{server.server_port}/apis/registry/v3"})
    finally:
        server.shutdown()


BOUND = dict(max_bytes=256 << 10, segment_bytes=32 << 10)


def test_drop_oldest_keeps_the_newest_while_the_broker_is_away(offline_producer):
    producer = offline_producer(["blob:bytes"], queue=QueueSettings(policy="drop_oldest", **BOUND))
    ids = [producer.send({"blob": bytes(8000)}) for _ in range(200)]  # ~1.6 MB into 256 KiB
    stats = producer.stats()
    assert stats.bytes_on_disk <= 256 << 10
    assert stats.dropped > 0 and stats.queued + stats.dropped == len(ids)


def test_reject_and_block_raise_queue_full_while_the_broker_is_away(offline_producer):
    for policy in ("reject", "block"):
        producer = offline_producer(["blob:bytes"], queue=QueueSettings(policy=policy, block_timeout=0.2, **BOUND))
        with pytest.raises(QueueFull, match=f"policy {policy}"):
            for _ in range(200):
                producer.send({"blob": bytes(8000)})
        queued = producer.stats().queued
        assert 0 < queued < 200 and producer.stats().bytes_on_disk <= 256 << 10
