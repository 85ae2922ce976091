"""``shardflow-edge``: the edge SDK from the command line.

    shardflow-edge import DIR --dataset cams --version v1 --spec spec.json --queue-dir /var/lib/edge/queue \\
        --device-id cam-7 [--index labels.csv] [--bootstrap HOST:PORT] [--registry URL] [--registry-config FILE]
    shardflow-edge status --queue-dir /var/lib/edge/queue

``import`` queues every file (durably) and then waits up to ``--flush-timeout`` seconds for the
broker to take them; what is not delivered by then stays queued and goes with the next run or any
producer on the same queue directory. Killed, it picks up where it was. Exit codes: 0 done, 1 queued
but not all delivered yet, 2 bad usage or input (nothing queued for the bad file).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from shardflow.edge.errors import EdgeError, SampleRejected


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--queue-dir", required=True, help="the device's queue directory (one producer at a time)")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="shardflow-edge", description="shardflow edge producer tools")
    sub = p.add_subparsers(dest="command", required=True)
    imp = sub.add_parser("import", help="queue a folder of images, .npy/.npz files or an index of files")
    imp.add_argument("dir")
    imp.add_argument("--dataset", required=True)
    imp.add_argument("--version", required=True)
    imp.add_argument("--spec", help="the dataset version's spec.json")
    imp.add_argument("--tensor", action="append", help="instead of --spec: name:dtype[:shape], repeated")
    imp.add_argument("--label", help="with --tensor: the label tensor's name")
    imp.add_argument("--index", help="a CSV or JSONL index of files (path, label, other columns as attributes)")
    imp.add_argument("--device-id", default=os.environ.get("SHARDFLOW_DEVICE_ID"), help="env SHARDFLOW_DEVICE_ID")
    imp.add_argument("--bootstrap", default=os.environ.get("SHARDFLOW_BOOTSTRAP_SERVERS"), help="env SHARDFLOW_BOOTSTRAP_SERVERS")
    imp.add_argument("--registry", default=os.environ.get("SHARDFLOW_REGISTRY_URL"), help="env SHARDFLOW_REGISTRY_URL")
    imp.add_argument("--registry-config", default=os.environ.get("SHARDFLOW_REGISTRY_CONFIG"),
                     help="a properties file of registry.auth.* (basic, or OAuth2 client credentials) and registry.tls.* "
                          "(a PEM CA) settings, as a secure local stack writes; env SHARDFLOW_REGISTRY_CONFIG")
    imp.add_argument("--kafka-config", default=os.environ.get("SHARDFLOW_KAFKA_CLIENT_CONFIG"),
                     help="a properties file of librdkafka settings (security.protocol, sasl.*, ssl.*); env SHARDFLOW_KAFKA_CLIENT_CONFIG")
    imp.add_argument("--batch", type=int, default=64, help="files per disk sync (default 64)")
    imp.add_argument("--max-queue-bytes", type=int, default=1 << 30)
    imp.add_argument("--flush-timeout", type=float, default=60.0, help="seconds to wait for delivery at the end (default 60)")
    _common(imp)
    _common(sub.add_parser("status", help="what a queue directory holds"))
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if args.command == "status":
        return _status(args.queue_dir)
    for name in ("device_id", "bootstrap", "registry"):
        if not getattr(args, name):
            print(f"shardflow-edge import: --{name.replace('_', '-')} is needed", file=sys.stderr)
            return 2
    if not args.spec and not args.tensor:
        print("shardflow-edge import: give --spec spec.json or --tensor name:dtype[:shape] (with --label)", file=sys.stderr)
        return 2
    from shardflow.edge.importer import Importer
    from shardflow.edge.producer import EdgeProducer
    from shardflow.edge.queue import QueueSettings
    from shardflow.edge.registry_auth import RegistryConfig, load_registry_config
    try:
        registry = load_registry_config(args.registry_config) if args.registry_config else RegistryConfig(None, None)
        producer = EdgeProducer(args.dataset, args.version, bootstrap=args.bootstrap, registry=args.registry,
                                queue_dir=args.queue_dir, device_id=args.device_id, spec=args.spec, tensors=args.tensor,
                                label=args.label, kafka_config=_properties(args.kafka_config),
                                registry_auth=registry.auth, registry_ca_bundle=registry.ca_bundle,
                                queue=QueueSettings(max_bytes=args.max_queue_bytes))
    except (EdgeError, ValueError, OSError) as e:
        print(f"shardflow-edge import: {e}", file=sys.stderr)
        return 2
    try:
        queued = Importer(producer, args.dir, args.index, args.batch).run()
        remaining = producer.flush(args.flush_timeout)
    except SampleRejected as e:
        print(f"shardflow-edge import: {e}", file=sys.stderr)
        return 2
    finally:
        producer.close(timeout=0)
    print(json.dumps({"queued": queued, "not_yet_delivered": remaining}))
    return 0 if remaining == 0 else 1


def _properties(path):
    from shardflow.edge.registry_auth import read_properties
    return read_properties(path) if path else None


def _status(queue_dir: str) -> int:
    from shardflow.edge.queue import DurableQueue
    q = DurableQueue(queue_dir)
    try:
        print(json.dumps({"queue_id": q.queue_id, "pending": q.pending(), "done_seq": q.done_seq(),
                          "durable_seq": q.durable_seq(), "attempted_seq": q.attempted_seq(), "bytes_on_disk": q.bytes_on_disk(),
                          "expired": len(os.listdir(os.path.join(queue_dir, "expired"))) if os.path.isdir(os.path.join(queue_dir, "expired")) else 0,
                          "segments": len(q.segments())}))
    finally:
        q.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
