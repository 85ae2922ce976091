"""One rank of a real DDP job that saves and resumes training checkpoints: gloo over 127.0.0.1,
a DistributedDataParallel model trained on a ShardflowDataLoader, ``Checkpoints.save`` every
``--save-every`` steps (model and optimizer from rank 0, every rank its RNG state, every rank's
loader position) and ``Checkpoints.resume`` at start, on any world size.

    python ckpt_ddp_job.py --uri file:///bucket --dataset cams --version v1 --rank 0 --world-size 3 \\
        --port 29500 --workers 2 --batch-size 8 --out rank0.jsonl --ckpt-uri s3://b --run r [--save-every 2]

Writes JSON lines: ``{"resumed": step, "params": digest}`` first, then per step the batch's sample
ids and the digest of the model's parameters after it, and ``{"saved": step}`` after each save.
"""

import argparse
import datetime
import hashlib
import json
import os
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from shardflow import Dataset  # noqa: E402
from shardflow.checkpoints import Checkpoints  # noqa: E402
from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset  # noqa: E402


def digest(model) -> str:
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()[:16]


def main() -> int:
    parser = argparse.ArgumentParser()
    for name in ("--uri", "--dataset", "--version", "--out", "--ckpt-uri", "--run"):
        parser.add_argument(name, required=True)
    for name in ("--rank", "--world-size", "--port", "--workers", "--batch-size"):
        parser.add_argument(name, type=int, required=True)
    parser.add_argument("--save-every", type=int, default=0)
    parser.add_argument("--step-delay", type=float, default=0.0)
    parser.add_argument("--cache-dir", default=None)
    args = parser.parse_args()

    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=args.rank,
                            world_size=args.world_size, timeout=datetime.timedelta(seconds=120))
    data = ShardflowIterableDataset(Dataset(args.uri, args.dataset, args.version, cache_dir=args.cache_dir),
                                    seed=17, shuffle_block=40)
    loader = ShardflowDataLoader(data, batch_size=args.batch_size, num_workers=args.workers)
    torch.manual_seed(0)
    model = torch.nn.Linear(3 * 4 * 4, 1)
    ddp = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    ckpt = Checkpoints(args.ckpt_uri, part_size=5 << 20, parallelism=2)

    step = 0
    restored = ckpt.resume(args.run, reader=loader)
    if restored is not None:
        model.load_state_dict(restored.load("model"))
        opt.load_state_dict(restored.load("optim"))
        if args.rank in restored.ranks:
            torch.set_rng_state(restored.load("rng", rank=args.rank))
        step = restored.step
    with open(args.out, "w") as out:
        out.write(json.dumps({"resumed": step, "params": digest(model)}) + "\n")
        out.flush()
        for batch in loader:
            x = batch["image"].reshape(len(batch["sample_id"]), -1)
            loss = ((ddp(x).squeeze(1) - batch["label"].float()) ** 2).mean()
            opt.zero_grad()
            loss.backward()  # the all-reduce: a rank that ran out would leave the others waiting
            opt.step()
            step += 1
            out.write(json.dumps({"step": step, "ids": batch["sample_id"], "params": digest(model)}) + "\n")
            out.flush()
            if args.save_every and step % args.save_every == 0:
                files = {"rng": torch.get_rng_state()}
                if args.rank == 0:
                    files.update(model=model.state_dict(), optim=opt.state_dict())
                ckpt.save(args.run, step, files, reader=loader)
                out.write(json.dumps({"saved": step}) + "\n")
                out.flush()
            if args.step_delay:
                time.sleep(args.step_delay)
        out.write(json.dumps({"done": True}) + "\n")
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
