"""Edge producer throughput against raw confluent-kafka, same records, same broker, same run.

    python -m shardflow.edge.bench --bootstrap HOST:PORT --registry URL [--json] [--samples N]

Per sample size (64 KiB and 12 KiB of tensor bytes, incompressible): raw confluent-kafka producing
the very records the SDK produces (framed Avro, the SDK's producer settings: idempotent, acks=all,
lz4, linger 10 ms) as fast as it takes them, then flush; and the SDK's queued-and-delivered rate,
from the first send until the broker acknowledged the last, one thread sending, per way of sending
(``MODES``): ``send`` with durability "fsync" (each sample synced before it returns), ``send``
with durability "process" (written to the OS; synced in the background within ``fsync_interval``),
``send_async`` with durability "fsync" (futures resolved by shared syncs; all awaited at the end)
and ``send_many`` (64 per sync). Each way runs between two raw runs (its baseline is their mean);
the figures are medians over ``--rounds`` rounds, and the CPU time of the process per
sample (all threads, librdkafka's included) says what bounds a rate on a busy machine. ``bin/shardflow bench --only edge`` runs it
on a fresh local stack and records the ratios; the queue alone against SQLite and persist-queue is
``python -m shardflow.edge.bench_queue``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
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


def _cpu_seconds() -> float:
    """CPU time of this process so far, every thread (librdkafka's included), user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def raw_rate(bootstrap: str, records: List, max_message_bytes: int) -> Dict[str, float]:
    from confluent_kafka import Producer
    settings = kafka_settings(bootstrap, max_message_bytes)
    producer = Producer(settings)
    producer.produce(TOPIC, value=records[0][1], key=records[0][0])  # connect and get a producer id first
    producer.flush(60)
    started, cpu = time.perf_counter(), _cpu_seconds()
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
    elapsed = time.perf_counter() - started
    return {"samples_per_s": len(records) / elapsed, "cpu_us_per_sample": (_cpu_seconds() - cpu) * 1e6 / len(records)}


#: way of sending -> (durability, how): "one" send per sample, "async" send_async, "many" send_many(64)
MODES = {"send_fsync": ("fsync", "one"), "send_process": ("process", "one"), "send_async_fsync": ("fsync", "async"),
         "send_many_fsync": ("fsync", "many")}


def sdk_rate(args, tensor_text: str, arrays: List[np.ndarray], mode: str, tag: str) -> Dict[str, float]:
    queue_dir = tempfile.mkdtemp(prefix="edge-bench-", dir=args.dir)
    name = tensor_text.split(":")[0]
    durability, how = MODES[mode]
    try:
        producer = EdgeProducer(args.dataset, "v1", bootstrap=args.bootstrap, registry=args.registry, queue_dir=queue_dir,
                                device_id="bench", tensors=[tensor_text], max_message_bytes=args.max_message_bytes,
                                queue=QueueSettings(max_bytes=4 << 30, durability=durability,
                                                    fsync_interval=args.fsync_interval if durability == "process" else None))
        producer.send({name: arrays[0]}, sample_id=f"{tag}-warm")
        producer.flush(60)
        started, cpu = time.perf_counter(), _cpu_seconds()
        if how == "one":
            for i, a in enumerate(arrays):
                producer.send({name: a}, sample_id=f"{tag}-{i}")
        elif how == "async":
            futures = [producer.send_async({name: a}, sample_id=f"{tag}-{i}") for i, a in enumerate(arrays)]
            for f in futures:
                f.result()
        else:
            for i in range(0, len(arrays), 64):
                producer.send_many([dict(tensors={name: a}, sample_id=f"{tag}-{i + j}") for j, a in enumerate(arrays[i:i + 64])])
        queued = time.perf_counter() - started
        if producer.flush(300) != 0:
            raise RuntimeError("the SDK could not deliver its queue")
        total, used = time.perf_counter() - started, _cpu_seconds() - cpu
        producer.close()
        return {"samples_per_s": len(arrays) / total, "queued_per_s": len(arrays) / queued,
                "cpu_us_per_sample": used * 1e6 / len(arrays)}
    finally:
        shutil.rmtree(queue_dir, ignore_errors=True)


def _round(args, label, text, arrays, records) -> Dict[str, float]:
    """One round at one size: raw, then each way of sending with raw again after it. Each way's
    baseline is the mean of the raw runs just before and just after it: the machine's load moves,
    and a baseline taken far from the run it is compared with would move the ratio with it."""
    raws = [raw_rate(args.bootstrap, records, args.max_message_bytes)]
    out: Dict[str, float] = {}
    for mode in args.modes.split(","):
        m = sdk_rate(args, text, arrays, mode, f"{mode}-{label}")
        raws.append(raw_rate(args.bootstrap, records, args.max_message_bytes))
        baseline = (raws[-2]["samples_per_s"] + raws[-1]["samples_per_s"]) / 2
        out[f"{mode}_samples_per_s"] = m["samples_per_s"]
        out[f"{mode}_queued_per_s"] = m["queued_per_s"]
        out[f"{mode}_cpu_us_per_sample"] = m["cpu_us_per_sample"]
        out[f"{mode}_raw_samples_per_s"] = baseline
        out[f"{mode}_ratio"] = m["samples_per_s"] / baseline
    rates = [r["samples_per_s"] for r in raws]
    out.update({"raw_samples_per_s": statistics.mean(rates), "raw_min_samples_per_s": min(rates),
                "raw_max_samples_per_s": max(rates), "raw_cpu_us_per_sample": statistics.mean(r["cpu_us_per_sample"] for r in raws)})
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bootstrap", default=os.environ.get("SHARDFLOW_BOOTSTRAP_SERVERS"))
    p.add_argument("--registry", default=os.environ.get("SHARDFLOW_REGISTRY_URL"))
    p.add_argument("--dataset", default="edgebench", help="dataset name on the records (no pipeline needs to run)")
    p.add_argument("--samples", type=int, default=3000, help="samples per measurement (default 3000)")
    p.add_argument("--max-message-bytes", type=int, default=(1 << 20) + (64 << 10))
    p.add_argument("--dir", default=None, help="where the queues go (default: the temporary folder)")
    p.add_argument("--fsync-interval", type=float, default=None, help="durability 'process': seconds (default: the SDK's)")
    p.add_argument("--rounds", type=int, default=3, help="rounds per size; figures are medians over them (default 3)")
    p.add_argument("--sizes", default=",".join(SHAPES), help=f"sample sizes (default all: {','.join(SHAPES)})")
    p.add_argument("--modes", default=",".join(MODES), help=f"ways of sending to measure (default all: {','.join(MODES)})")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if not args.bootstrap or not args.registry:
        p.error("--bootstrap and --registry (or SHARDFLOW_BOOTSTRAP_SERVERS / SHARDFLOW_REGISTRY_URL) are needed")
    content_id = RegistryClient(args.registry, TOPIC).content_id()
    rows = []
    for label in args.sizes.split(","):
        text, shape, dtype = SHAPES[label]
        arrays = _tensors(shape, dtype, args.samples)
        records = []
        spec = load_spec(None, args.dataset, "v1", None, [text]).spec
        for i, a in enumerate(arrays):
            body = wire.encode_sample(args.dataset, "v1", f"raw-{label}-{i}", "bench", 0,
                                      pack_tensors(spec, {text.split(':')[0]: a}, False, Limits()), {})
            records.append((f"raw-{label}-{i}".encode(), wire.frame_value(content_id, body)))
        rounds = [_round(args, label, text, arrays, records) for _ in range(args.rounds)]
        row = {"size": label, "tensor_bytes": int(np.prod(shape)) * np.dtype(dtype).itemsize, "rounds": rounds}
        # each figure is the median over the rounds (each round's ratio against its own baseline): the
        # machine's load moves between rounds, and a median is not thrown by one disturbed round
        for key in rounds[0]:
            row[key] = statistics.median(r[key] for r in rounds)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "rounds"}), file=sys.stderr)
    result = {"samples": args.samples, "rounds": args.rounds, "fsync_interval_process": QueueSettings(durability="process",
              fsync_interval=args.fsync_interval).checked().fsync_interval, "rows": rows}
    print(json.dumps(result, indent=2) if args.json else _table(rows))
    return 0


def _table(rows) -> str:
    lines = ["| sample | way of sending | queued+delivered samples/s | raw confluent-kafka samples/s | ratio | CPU µs/sample (raw) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        for mode in MODES:
            if f"{mode}_ratio" in r:
                lines.append(f"| {r['size']} | {mode} | {r[f'{mode}_samples_per_s']:.0f} | {r[f'{mode}_raw_samples_per_s']:.0f} | "
                             f"{r[f'{mode}_ratio']:.2f} | {r[f'{mode}_cpu_us_per_sample']:.0f} ({r['raw_cpu_us_per_sample']:.0f}) |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
