"""A process that saves training checkpoints into a real S3 server, for kill -9 tests. Each step
saves a torch file of ``--mib`` MiB filled with the step number, a numpy array and a stream of
bytes; it starts from ``resume()`` (the step after the newest saved one), so a killed job started
again goes on. Every stage of a save is printed (``EVENT <event> <step> <name>``); with ``--pause
EVENT:STEP[:NAME]`` the process stops there (``PAUSED``) until it is killed, and ``--pause
stream:STEP`` stops half way through the stream, with some of its parts uploaded.

    SHARDFLOW_S3_ENDPOINT=... python ckpt_kill_job.py --bucket b --run r --steps 5 --mib 12
"""

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from shardflow.checkpoints import Checkpoints  # noqa: E402

MIB = 1 << 20


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def stop_here() -> None:
    say("PAUSED")
    while True:
        time.sleep(60)  # until the test kills this process


def values_of(step: int, mib: int) -> dict:
    return {"model": {"w": torch.full((mib * MIB // 4,), float(step))}, "optim": np.full(1000, step, dtype=np.int64),
            "tail": b"%d" % step * 1000}


class SlowStream:
    """``mib`` MiB of the step's byte, read in 1 MiB slices; may stop half way (``--pause stream``)."""

    def __init__(self, step: int, mib: int, pause: bool):
        self.step, self.left, self.pause, self.given = step, mib * MIB, pause, 0

    def readinto(self, buffer) -> int:
        if self.pause and self.given >= 11 * MIB:  # two 5 MiB parts sent, the upload not completed
            time.sleep(0.5)
            stop_here()
        n = min(len(buffer), self.left - self.given)
        buffer[:n] = bytes([self.step % 256]) * n
        self.given += n
        return n


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--run", required=True)
    parser.add_argument("--steps", type=int, required=True)
    parser.add_argument("--mib", type=int, default=12)
    parser.add_argument("--pause", default=None)
    args = parser.parse_args()
    pause = args.pause.split(":") if args.pause else None

    def observer(event, **details):
        step = details.get("step", current[0])
        say(f"EVENT {event} {step} {details.get('name', '')}")
        named = len(pause or ()) < 3 or pause[2] == details.get("name")
        if pause and pause[0] == event and int(pause[1]) == step and named:
            stop_here()

    current = [0]
    ckpt = Checkpoints(f"s3://{args.bucket}", part_size=5 * MIB, parallelism=3, observer=observer)
    restored = ckpt.resume(args.run)
    start = 0 if restored is None else restored.step + 1
    say(f"START {start}")
    for step in range(start, args.steps):
        current[0] = step
        values = values_of(step, args.mib)
        values["stream"] = SlowStream(step, args.mib, bool(pause and pause[0] == "stream" and int(pause[1]) == step))
        ckpt.save(args.run, step, values)
    say("DONE")
    return 0


if __name__ == "__main__":
    sys.exit(main())
