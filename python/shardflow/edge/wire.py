"""The record on topic ``samples`` (docs/producing/wire-format.md), byte for byte as edge-client writes it.

key    the sample id, UTF-8
value  0x00, the writer schema's content id (big-endian int32), the Sample in Avro binary
headers (queued sends only) ``shardflow.queue`` = the queue id, ``shardflow.seq`` = the entry's seq
       in decimal: ingest-app drops a record whose seq is at or below the highest it has seen for
       (dataset, version, device, queue), however long ago that was (docs/ARCHITECTURE.md § 1).

The schema text is the one edge-client's serializer registers (``Sample.getClassSchema()``,
checked by edge-client's WireFixtureTest), so both SDKs share one content id in the registry.
"""

from __future__ import annotations

import io
import json
import os
import struct
from typing import List, Mapping

import fastavro

from shardflow.edge.spec_check import WireTensor

SCHEMA_TEXT = open(os.path.join(os.path.dirname(__file__), "sample_schema.avsc"), encoding="utf-8").read().strip()
_SCHEMA = fastavro.parse_schema(json.loads(SCHEMA_TEXT))
MAGIC = b"\x00"
HEADER_QUEUE = "shardflow.queue"
HEADER_SEQ = "shardflow.seq"


def encode_sample(dataset: str, version: str, sample_id: str, device_id: str, produced_at_ms: int,
                  tensors: List[WireTensor], attributes: Mapping[str, str]) -> bytes:
    """The Avro body of a Sample. ``attributes`` are written in the mapping's order (see
    spec_check.check_attributes for the order both SDKs use)."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, _SCHEMA, {
        "dataset": dataset, "version": version, "sampleId": sample_id, "deviceId": device_id,
        "producedAt": produced_at_ms,
        "tensors": [{"name": t.name, "dtype": t.dtype, "shape": t.shape, "data": t.data} for t in tensors],
        "attributes": dict(attributes),
    })
    return out.getvalue()


def decode_sample(body: bytes) -> dict:
    return fastavro.schemaless_reader(io.BytesIO(body), _SCHEMA, _SCHEMA)


def frame_value(content_id: int, body: bytes) -> bytes:
    """Apicurio 3 framing: magic byte, then the content id as a 4-byte big-endian int."""
    return MAGIC + struct.pack(">I", content_id) + body


def framed_size(body_len: int) -> int:
    return 5 + body_len


def sequence_headers(queue_id: str, seq: int):
    return [(HEADER_QUEUE, queue_id.encode("ascii")), (HEADER_SEQ, str(seq).encode("ascii"))]
