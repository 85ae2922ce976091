"""The queue files are one contract for both SDKs (docs/EDGE-QUEUE.md): this reads a queue directory
edge-client's Java queue wrote (committed fixture, written by edge-client's QueueFormatCompatTest),
and writes the Python one that test reads (SHARDFLOW_WRITE_FIXTURES=1 rewrites it)."""

import os
import shutil

import pytest

from shardflow.edge import segment as seg
from shardflow.edge.queue import DurableQueue, QueueSettings
from shardflow.edge.reader import QueueReader

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
SETTINGS = QueueSettings(max_bytes=1 << 20, segment_bytes=8 << 10)


def value(n: int) -> bytes:
    return bytes((n * 31 + i) % 251 for i in range(1000 + 300 * n))


def entries_after_open(directory):
    q = DurableQueue(directory, SETTINGS)
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while (frame := reader.next(0)) is not None:
        out.append((frame.seq,) + seg.split_payload(frame.payload))
    reader.close()
    segments = len(q.segments())
    q.close()
    return out, segments


@pytest.mark.parametrize("writer", ["java"])
def test_should_read_a_queue_the_other_sdk_wrote(tmp_path, writer):
    source = os.path.join(FIXTURES, f"{writer}-queue")
    shutil.copytree(source, tmp_path / "q")
    entries, _ = entries_after_open(str(tmp_path / "q"))
    assert entries == [(n + 1, f"{writer[0]}-{n}".encode(), value(n)) for n in range(3, 10)]


def test_should_write_the_fixture_the_java_side_reads(tmp_path):
    target = os.path.join(FIXTURES, "python-queue")
    directory = str(tmp_path / "q")
    q = DurableQueue(directory, SETTINGS)
    for n in range(10):
        q.append(f"p-{n}".encode(), value(n))
    for s in (1, 2, 3):
        q.ack(s)
    q.close()
    os.remove(os.path.join(directory, "lock"))
    entries, segments = entries_after_open(directory)
    assert segments >= 2 and [e[0] for e in entries] == list(range(4, 11))
    if os.environ.get("SHARDFLOW_WRITE_FIXTURES") == "1":
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(directory, target, ignore=shutil.ignore_patterns("lock"))
    assert os.path.isdir(target), "run once with SHARDFLOW_WRITE_FIXTURES=1 and commit the folder"
    committed = sorted(n for n in os.listdir(target))
    assert "queue.id" in committed and "cursor" in committed and any(n.startswith("segment-") for n in committed)
