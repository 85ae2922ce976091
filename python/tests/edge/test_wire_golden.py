"""Records from the Python SDK are byte for byte those edge-client writes for the same sample: the
fixture is written by edge-client's WireFixtureTest (Avro SpecificDatumWriter, Apicurio 3 framing)."""

import os

import numpy as np
import pytest

from shardflow.edge import wire

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "java_wire_records.txt")
CONTENT_ID = 7  # WireFixtureTest.CONTENT_ID
AT = 1_700_000_000.123


def java_records():
    with open(FIXTURE) as f:
        rows = [line.split() for line in f if not line.startswith("#")]
    return {name: (bytes.fromhex(key), bytes.fromhex(value)) for name, key, value in rows}


CASES = {
    "all_types": dict(
        tensors=["f32:float32:2x3", "f64:float64:3", "label:int64", "i32:int32:4", "u8:uint8:5", "f16:float16:3",
                 "bf16:bfloat16:2", "u16:uint16:2", "u32:uint32:1", "u64:uint64:1", "flags:bool:3", "i8:int8:2",
                 "i16:int16:2", "caption:string", "blob:bytes"],
        values={"f32": (np.arange(6, dtype=np.float32) * 0.25 - 1).reshape(2, 3),
                "f64": np.array([0.0, 1 / 3, -2 / 3]),
                "label": np.int64(7),
                "i32": np.array([0, -1000, -2000, -3000], dtype=np.int32),
                "u8": np.array([0, 50, 100, 150, 200], dtype=np.uint8),
                "f16": np.array([0.1, -2.5, 65504], dtype=np.float32).astype(np.float16),
                "bf16": np.array([1.1, -3.3], dtype=np.float32),
                "u16": np.array([65535, 1], dtype=np.uint16),
                "u32": np.array([4294967295], dtype=np.uint32),
                "u64": np.array([2 ** 64 - 1], dtype=np.uint64),
                "flags": np.array([True, False, True]),
                "i8": np.array([-128, 127], dtype=np.int8),
                "i16": np.array([0x1234, -1], dtype=np.int16),
                "caption": "h\u00e9llo \u2713 \U0001F600",
                "blob": bytes(range(10))},
        # in no sorted order; U+FF5A sorts after U+1F600 by code point but before it in UTF-16, as Java sorts
        metadata={"site": "lab", "\uFF5Ak": "f", "cam": "c1", "\U0001F600k": "e", "\u00fcn\u00ef": "x"},
        sample_id="golden-1"),
    "no_attributes": dict(tensors=["x:float32"], values={"x": np.float32(3.5)}, metadata=None, sample_id="golden-2"),
    "large_uint8": dict(tensors=["pixels:uint8:256x256"],
                        values={"pixels": ((np.arange(65536) * 31 + 7) & 0xFF).astype(np.uint8).reshape(256, 256)},
                        metadata={"k": "v"}, sample_id="golden-3"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_should_encode_each_sample_to_the_bytes_edge_client_writes(name, offline_producer):
    case = CASES[name]
    producer = offline_producer(case["tensors"])
    sample_id, body = producer._encode(case["values"], metadata=case["metadata"], sample_id=case["sample_id"], produced_at=AT)
    key, value = java_records()[name]
    assert sample_id.encode() == key
    assert wire.frame_value(CONTENT_ID, body) == value


def test_should_decode_back_what_it_encodes(offline_producer):
    producer = offline_producer(CASES["all_types"]["tensors"])
    _, body = producer._encode(CASES["all_types"]["values"], sample_id="s", produced_at=AT)
    decoded = wire.decode_sample(body)
    assert decoded["sampleId"] == "s" and decoded["deviceId"] == "dev-1"
    assert [t["name"] for t in decoded["tensors"]][:3] == ["f32", "f64", "label"]
    assert np.frombuffer(decoded["tensors"][0]["data"], "<f4").tolist() == [-1.0, -0.75, -0.5, -0.25, 0.0, 0.25]
