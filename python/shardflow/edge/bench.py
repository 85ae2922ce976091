"""Edge producer throughput against raw confluent-kafka, same records, same broker, same run.

    python -m shardflow.edge.bench --bootstrap HOST:PORT --registry URL [--json] [--samples N]

Per sample size (64 KiB and 12 KiB of tensor bytes, incompressible): raw confluent-kafka producing
the very records the SDK produces (framed Avro, the SDK's producer settings: idempotent, acks=all,
lz4, linger 10 ms) as fast as it takes them, then flush; and the SDK's queued-and-delivered rate:
``send`` (each sample durable on disk before it returns) or ``send_many`` (64 per disk sync), from
the first send until the broker acknowledged the last. ``bin/shardflow bench --only edge`` runs it
on a fresh local stack and records the ratios; the queue alone against SQLite and persist-queue is
``python -m shardflow.edge.bench_queue``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from typing import Dict, List

import numpy as np

from shardflow.edge import EdgeProducer, QueueSettings, wire
from shardflow.edge.registry import RegistryClient
from shardflow.edge.sender import kafka_settings
from shardflow.edge.spec_check import Limits, pack_tensors
from shardflow.edge.spec_source import load_spec

SHAPES = {"64KiB": ("pixels:uint8:256x256", (256, 256), np.uint8), "12KiB": ("image:float32:3x32x32", (3, 32, 32), np.float32)}
TOPIC = "samples"


def _tensors(shape, dtype, n, seed=1):
    rng = np.random.default_rng(seed)
    if dtype == np.uint8:
        return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(n)]
    return [rng.random(shape, dtype=np.float32) for _ in range(n)]


def raw_rate(bootstrap: str, records: List, max_message_bytes: int) -> float:
    from confluent_kafka import Producer
    settings = kafka_settings(bootstrap, max_message_bytes)
    producer = Producer(settings)
    producer.produce(TOPIC, value=records[0][1], key=records[0][0])  # connect and get a producer id first
    producer.flush(60)
    started = time.perf_counter()
    for key, value in records:
        while True:
            try:
                producer.produce(TOPIC, value=value, key=key)
                break
            except BufferError:
                producer.poll(0.01)
        producer.poll(0)
    if producer.flush(120) != 0:
        raise RuntimeError("raw producer could not deliver")
    return len(records) / (time.perf_counter() - started)


def sdk_rate(args, tensor_text: str, arrays: List[np.ndarray], batch: int, tag: str) -> Dict[str, float]:
    queue_dir = tempfile.mkdtemp(prefix="edge-bench-", dir=args.dir)
    name = tensor_text.split(":")[0]
    try:
        producer = EdgeProducer(args.dataset, "v1", bootstrap=args.bootstrap, registry=args.registry, queue_dir=queue_dir,
                                device_id="bench", tensors=[tensor_text], max_message_bytes=args.max_message_bytes,
                                queue=QueueSettings(max_bytes=4 << 30))
        producer.send({name: arrays[0]}, sample_id=f"{tag}-warm")
        producer.flush(60)
        started = time.perf_counter()
        if batch == 1:
            for i, a in enumerate(arrays):
                producer.send({name: a}, sample_id=f"{tag}-{i}")
        else:
            for i in range(0, len(arrays), batch):
                producer.send_many([dict(tensors={name: a}, sample_id=f"{tag}-{i + j}") for j, a in enumerate(arrays[i:i + batch])])
        queued = time.perf_counter() - started
        if producer.flush(300) != 0:
            raise RuntimeError("the SDK could not deliver its queue")
        total = time.perf_counter() - started
        producer.close()
        return {"samples_per_s": len(arrays) / total, "queued_per_s": len(arrays) / queued}
    finally:
        shutil.rmtree(queue_dir, ignore_errors=True)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bootstrap", default=os.environ.get("SHARDFLOW_BOOTSTRAP_SERVERS"))
    p.add_argument("--registry", default=os.environ.get("SHARDFLOW_REGISTRY_URL"))
    p.add_argument("--dataset", default="edgebench", help="dataset name on the records (no pipeline needs to run)")
    p.add_argument("--samples", type=int, default=3000, help="samples per measurement (default 3000)")
    p.add_argument("--max-message-bytes", type=int, default=(1 << 20) + (64 << 10))
    p.add_argument("--dir", default=None, help="where the queues go (default: the temporary folder)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not args.bootstrap or not args.registry:
        p.error("--bootstrap and --registry (or SHARDFLOW_BOOTSTRAP_SERVERS / SHARDFLOW_REGISTRY_URL) are needed")
    content_id = RegistryClient(args.registry, TOPIC).content_id()
    rows = []
    for label, (text, shape, dtype) in SHAPES.items():
        arrays = _tensors(shape, dtype, args.samples)
        records = []
        spec = load_spec(None, args.dataset, "v1", None, [text]).spec
        for i, a in enumerate(arrays):
            body = wire.encode_sample(args.dataset, "v1", f"raw-{label}-{i}", "bench", 0,
                                      pack_tensors(spec, {text.split(':')[0]: a}, False, Limits()), {})
            records.append((f"raw-{label}-{i}".encode(), wire.frame_value(content_id, body)))
        raw = raw_rate(args.bootstrap, records, args.max_message_bytes)
        one = sdk_rate(args, text, arrays, 1, f"one-{label}")
        many = sdk_rate(args, text, arrays, 64, f"many-{label}")
        row = {"size": label, "tensor_bytes": int(np.prod(shape)) * np.dtype(dtype).itemsize, "raw_samples_per_s": raw,
               "send_samples_per_s": one["samples_per_s"], "send_queued_per_s": one["queued_per_s"],
               "send_many_samples_per_s": many["samples_per_s"], "send_ratio": one["samples_per_s"] / raw,
               "send_many_ratio": many["samples_per_s"] / raw}
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    result = {"samples": args.samples, "rows": rows}
    print(json.dumps(result, indent=2) if args.json else _table(rows))
    return 0


def _table(rows) -> str:
    lines = ["| sample | raw confluent-kafka samples/s | send() queued+delivered samples/s | ratio | send_many(64) samples/s | ratio |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['size']} | {r['raw_samples_per_s']:.0f} | {r['send_samples_per_s']:.0f} | {r['send_ratio']:.2f} | "
                     f"{r['send_many_samples_per_s']:.0f} | {r['send_many_ratio']:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
