"""One rank of a real DDP-style job: gloo over 127.0.0.1, an all_reduce every step, a
ShardflowDataLoader with DataLoader workers. Run as its own process (tests start one per rank, and
kill them with SIGKILL to test resuming):

    python ddp_job.py --uri file:///bucket --dataset cams --version v1 --rank 0 --world-size 3 \\
        --port 29500 --workers 2 --batch-size 8 --out rank0.jsonl [--resume state.json] [--step-delay 0.2]

Writes one JSON line per step: the step, the batch's sample ids, the loader's state after it, and
the all_reduce result (the sum of every rank's batch length: equal on all ranks or the job is broken).
"""

import argparse
import datetime
import json
import os
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from shardflow import Dataset  # noqa: E402
from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    for name in ("--uri", "--dataset", "--version", "--out"):
        parser.add_argument(name, required=True)
    for name in ("--rank", "--world-size", "--port", "--workers", "--batch-size"):
        parser.add_argument(name, type=int, required=True)
    parser.add_argument("--resume", default=None)
    parser.add_argument("--step-delay", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--shuffle-block", type=int, default=40)
    parser.add_argument("--cache-dir", default=None)
    parser.add_argument("--snapshot", type=int, default=None)
    args = parser.parse_args(argv)

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=args.world_size, timeout=datetime.timedelta(seconds=60))
    data = ShardflowIterableDataset(Dataset(args.uri, args.dataset, args.version, args.snapshot,
                                            cache_dir=args.cache_dir),
                                    seed=args.seed, shuffle_block=args.shuffle_block)
    loader = ShardflowDataLoader(data, batch_size=args.batch_size, num_workers=args.workers)
    if args.resume:
        with open(args.resume) as f:
            loader.load_state_dict(json.load(f))
    with open(args.out, "w") as out:
        for step, batch in enumerate(loader):
            total = torch.tensor([len(batch["sample_id"])], dtype=torch.int64)
            dist.all_reduce(total)  # a rank that ran out would leave the others waiting here
            out.write(json.dumps({"step": step, "ids": batch["sample_id"], "state": loader.state_dict(),
                                  "all_reduce": int(total.item())}) + "\n")
            out.flush()
            if args.step_delay:
                time.sleep(args.step_delay)
        out.write(json.dumps({"done": True, "state": loader.state_dict()}) + "\n")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
