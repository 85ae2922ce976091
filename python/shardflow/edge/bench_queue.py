"""The queue alone: the segment log against SQLite in WAL mode and against persist-queue (PyPI), same
entries, same disk, same run. ``python -m shardflow.edge.bench_queue [--json] [--dir DIR]``.

Per store and entry size: durable appends one at a time (each durable before the next), appends in
batches of 64 (one sync per batch), the drain (read every entry in order and delete it), and a
restart on a backlog (time to open and peak memory of a fresh process, which also reads the first
entry). Each store first appends and drains 24 MiB, so the numbers are a running device's (the
segment log reuses done segment files; SQLite reuses its WAL). persist-queue's file ``Queue`` syncs only when it closes a chunk, so its appends are not
durable when ``put`` returns: its row is a speed reference, not a like-for-like store.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List

SIZES = {"12KiB": 12 * 1024, "64KiB": 64 * 1024}


def _entries(size: int, n: int, tag: str):
    body = os.urandom(size)
    return [(f"{tag}-{i}".encode(), body) for i in range(n)]


def _segment_store(path: str):
    from shardflow.edge.queue import DurableQueue, QueueSettings
    from shardflow.edge.reader import QueueReader
    q = DurableQueue(path, QueueSettings(max_bytes=8 << 30, segment_bytes=16 << 20))

    def drain():
        reader = QueueReader(q, q.done_seq() + 1)
        n = 0
        while True:
            frame = reader.next(0)
            if frame is None:
                return n
            q.ack(frame.seq)
            n += 1
    return q.append, q.append_many, drain, q.close


def _sqlite_store(path: str):
    from shardflow.edge.sqlite_queue import SqliteQueue
    q = SqliteQueue(path)

    def drain():
        last, n = 0, 0
        while True:
            rows = q.read_after(last, 64)
            if not rows:
                return n
            last = rows[-1][0]
            q.delete_through(last)
            n += len(rows)
    return q.append, q.append_many, drain, q.close


def _persist_queue_store(path: str):
    import persistqueue
    q = persistqueue.SQLiteAckQueue(path, multithreading=True, auto_commit=True)

    def append_many(entries):
        for e in entries:
            q.put(e)

    def drain():
        n = 0
        while q.qsize():
            item = q.get(block=False)
            q.ack(item)
            n += 1
        return n
    return lambda k, v: q.put((k, v)), append_many, drain, lambda: None


def _persist_file_queue_store(path: str):
    import persistqueue
    q = persistqueue.Queue(path, autosave=True)

    def append_many(entries):
        for e in entries:
            q.put(e)

    def drain():
        n = 0
        while q.qsize():
            q.get(block=False)
            q.task_done()
            n += 1
        return n
    return lambda k, v: q.put((k, v)), append_many, drain, lambda: None


STORES: Dict[str, Callable] = {
    "segment log (shardflow.edge)": _segment_store,
    "SQLite WAL, synchronous=FULL": _sqlite_store,
    "persist-queue SQLiteAckQueue": _persist_queue_store,
    "persist-queue Queue (file, no sync per put)": _persist_file_queue_store,
}


def measure(store: str, size: int, n: int, root: str, warmup_mib: int = 24) -> Dict[str, float]:
    path = tempfile.mkdtemp(dir=root)
    append, append_many, drain, close = STORES[store](path)
    warm = _entries(size, 64, "warm")
    for _ in range(max(1, (warmup_mib << 20) // (64 * size))):  # steady state: files reused, WAL recycled
        append_many(warm)
        drain()
    entries = _entries(size, n, "one")
    t = time.perf_counter()
    for key, value in entries:
        append(key, value)
    one = n / (time.perf_counter() - t)
    batch = _entries(size, n, "batch")
    t = time.perf_counter()
    for i in range(0, n, 64):
        append_many(batch[i:i + 64])
    batched = n / (time.perf_counter() - t)
    t = time.perf_counter()
    drained = drain()
    drain_rate = drained / (time.perf_counter() - t)
    close()
    shutil.rmtree(path, ignore_errors=True)
    return {"append_one_per_s": one, "append_batch64_per_s": batched, "drain_per_s": drain_rate,
            "append_one_mb_s": one * size / 1e6, "drained": drained}


_RESTART = """
import resource, sys, time
t = time.perf_counter()
kind, path = sys.argv[1], sys.argv[2]
if kind == "segment":
    from shardflow.edge.queue import DurableQueue, QueueSettings
    from shardflow.edge.reader import QueueReader
    q = DurableQueue(path, QueueSettings(max_bytes=8 << 30))
    first = QueueReader(q, q.done_seq() + 1).next(0)
    pending = q.pending()
else:
    from shardflow.edge.sqlite_queue import SqliteQueue
    q = SqliteQueue(path)
    first = q.read_after(0, 1)[0]
    pending = q.pending()
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, pending)
"""


def restart(kind: str, backlog_bytes: int, size: int, root: str) -> Dict[str, float]:
    path = tempfile.mkdtemp(dir=root)
    make = _segment_store if kind == "segment" else _sqlite_store
    _, append_many, _, close = make(path)
    batch = _entries(size, 256, "backlog")
    for _ in range(max(1, backlog_bytes // (size * 256))):
        append_many(batch)
    close()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", _RESTART, kind, path], capture_output=True, text=True, env=env, check=True)
    seconds, rss_kib, pending = out.stdout.split()
    shutil.rmtree(path, ignore_errors=True)
    return {"open_s": float(seconds), "peak_rss_mib": int(rss_kib) / 1024, "entries": int(pending),
            "backlog_mib": backlog_bytes / 2**20}


def main(argv: List[str] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", default=None, help="where the queues are written (default: a temporary folder)")
    p.add_argument("--entries", type=int, default=1000, help="entries per measurement (default 1000)")
    p.add_argument("--backlog-mib", type=int, default=1024, help="backlog of the restart measurement (default 1024)")
    p.add_argument("--warmup-mib", type=int, default=24, help="appended and drained first, per store (default 24)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    root = tempfile.mkdtemp(dir=args.dir)
    results = {"throughput": [], "restart": []}
    try:
        for label, size in SIZES.items():
            for store in STORES:
                row = {"store": store, "entry": label, **measure(store, size, args.entries, root, args.warmup_mib)}
                results["throughput"].append(row)
                print(json.dumps(row), file=sys.stderr)
        for kind in ("segment", "sqlite"):
            row = {"store": kind, **restart(kind, args.backlog_mib << 20, 64 * 1024, root)}
            results["restart"].append(row)
            print(json.dumps(row), file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


def _table(results) -> str:
    lines = ["| store | entry | durable appends/s, one at a time | appends/s, batches of 64 | drain entries/s |",
             "|---|---|---|---|---|"]
    for r in results["throughput"]:
        lines.append(f"| {r['store']} | {r['entry']} | {r['append_one_per_s']:.0f} ({r['append_one_mb_s']:.0f} MB/s) | "
                     f"{r['append_batch64_per_s']:.0f} | {r['drain_per_s']:.0f} |")
    lines += ["", "| store | backlog | entries | open + first entry, s | peak RSS of the process, MiB |", "|---|---|---|---|---|"]
    for r in results["restart"]:
        lines.append(f"| {r['store']} | {r['backlog_mib']:.0f} MiB | {r['entries']} | {r['open_s']:.3f} | {r['peak_rss_mib']:.0f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
