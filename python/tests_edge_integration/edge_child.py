"""A producing process for the crash test: sends samples crash-<n> through an EdgeProducer on a
shared queue directory until it is killed. Before each send it appends n to attempts.log, after
``send`` returned to returned.log (flushed: a kill -9 keeps the page cache), and it reports the
producer's stats to stats.json every 20 ms, so the killer knows whether anything was in flight.
The queue's durability is EDGE_CHILD_DURABILITY ("fsync", the default, or "process"); its samples
are crash-<n> from device crash-<durability>.

    python edge_child.py QUEUE_DIR JOURNAL_DIR [LIMIT]
"""

import json
import os
import sys
import threading
import time

import numpy as np

from shardflow.edge import EdgeProducer, QueueSettings

DATASET, VERSION = "edge", "v1"
DURABILITY = os.environ.get("EDGE_CHILD_DURABILITY", "fsync")
DEVICE = f"crash-{DURABILITY}"
TENSORS = ["image:float32:3x8x8", "label:int64"]


def sample(n):
    return {"image": np.random.default_rng(n).random((3, 8, 8), dtype=np.float32)}, n % 10


def numbers(path):
    try:
        with open(path) as f:
            return [int(line) for line in f.read().split("\n")[:-1] if line.strip()]
    except FileNotFoundError:
        return []


def main(queue_dir, journal, limit=None):
    attempts = numbers(os.path.join(journal, "attempts.log"))
    n = max(attempts) + 1 if attempts else 0
    producer = EdgeProducer(DATASET, VERSION, bootstrap=os.environ["SHARDFLOW_BOOTSTRAP_SERVERS"],
                            registry=os.environ["SHARDFLOW_REGISTRY_URL"], queue_dir=queue_dir, device_id=DEVICE,
                            tensors=TENSORS, label="label", queue=QueueSettings(max_bytes=256 << 20, durability=DURABILITY),
                            max_message_bytes=(1 << 20) + (64 << 10))
    open(os.path.join(journal, f"ready-{os.getpid()}"), "w").close()  # the test times its kill from here, not from exec
    stop = threading.Event()

    def report():
        while not stop.is_set():
            s = producer.stats()
            tmp = os.path.join(journal, "stats.json.tmp")
            with open(tmp, "w") as f:
                json.dump({"in_flight": s.in_flight, "queued": s.queued, "acknowledged": s.acknowledged}, f)
            os.replace(tmp, os.path.join(journal, "stats.json"))
            time.sleep(0.02)
    threading.Thread(target=report, daemon=True).start()
    with open(os.path.join(journal, "attempts.log"), "a") as attempted, open(os.path.join(journal, "returned.log"), "a") as returned:
        while limit is None or n < limit:
            attempted.write(f"{n}\n")
            attempted.flush()
            tensors, label = sample(n)
            producer.send(tensors, labels=label, sample_id=f"crash-{n}", metadata={"n": n})
            returned.write(f"{n}\n")
            returned.flush()
            n += 1
    remaining = producer.flush(timeout=float(os.environ.get("EDGE_CHILD_FLUSH_S", "180")))
    stop.set()
    producer.close(timeout=5)
    print(json.dumps({"remaining": remaining}))
    return 0 if remaining == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None))
