"""Helpers for the edge SDK tests: producers that never reach a broker (the queue and the checks
are what these tests look at; tests/integration drives the real stack)."""

import pytest

from shardflow.edge import EdgeProducer, QueueSettings

from .offline import OFFLINE, SilentProducer

@pytest.fixture
def offline_producer(tmp_path):
    made = []

    def make(tensors, label=None, queue=QueueSettings(), dataset="edge", version="v1", device_id="dev-1", **kw):
        p = EdgeProducer(dataset, version, queue_dir=str(tmp_path / f"q{len(made)}"), device_id=device_id, tensors=tensors,
                         label=label, queue=queue, producer_factory=SilentProducer, **{**OFFLINE, **kw})
        made.append(p)
        return p
    yield make
    for p in made:
        p.close(timeout=0)
