"""A real DDP job (gloo, one process per rank, DistributedDataParallel, 2 DataLoader workers each)
saves training checkpoints into a real S3 server every 2 steps, is killed with SIGKILL, and is
resumed with Checkpoints.resume on 2 ranks instead of 3: it continues from the newest checkpoint's
model, optimizer and reader position, and the sample ids it reads are exactly the uninterrupted
run's remainder of the epoch, in order."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from test_ddp import free_port, global_sequence

pytest.importorskip("torch")
from shardflow.checkpoints import Checkpoints  # noqa: E402

JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ckpt_ddp_job.py")
DEADLINE_S = 300


def start(tmp, uri, server, run, world_size, tag, save_every=0, delay=0.0):
    port = free_port()
    procs = []
    for rank in range(world_size):
        cmd = [sys.executable, JOB, "--uri", uri, "--dataset", "cams", "--version", "v1", "--rank", str(rank),
               "--world-size", str(world_size), "--port", str(port), "--workers", "2", "--batch-size", "8",
               "--out", os.path.join(tmp, f"{tag}-{rank}.jsonl"), "--cache-dir", os.path.join(tmp, "cache"),
               "--ckpt-uri", f"s3://{server.bucket}", "--run", run, "--save-every", str(save_every),
               "--step-delay", str(delay)]
        log = open(os.path.join(tmp, f"{tag}-{rank}.log"), "w")
        procs.append(subprocess.Popen(cmd, env=dict(os.environ, **server.env()), stdout=log, stderr=subprocess.STDOUT))
    return procs


def lines(tmp, tag, rank):
    path = os.path.join(tmp, f"{tag}-{rank}.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.endswith("\n")]


def wait_all(procs, tmp, tag):
    deadline = time.monotonic() + DEADLINE_S
    for rank, p in enumerate(procs):
        try:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            log = open(os.path.join(tmp, f"{tag}-{rank}.log")).read()[-3000:]
            pytest.fail(f"{tag} did not finish in {DEADLINE_S} s: {log}")
        assert p.returncode == 0, open(os.path.join(tmp, f"{tag}-{rank}.log")).read()[-3000:]


def ids_per_rank(tmp, tag, world_size):
    return [[i for line in lines(tmp, tag, r) if "ids" in line for i in line["ids"]] for r in range(world_size)]


def test_should_resume_a_killed_ddp_job_from_its_checkpoint_on_another_world_size(built, tmp_path, s3_server):
    tmp, uri = os.fspath(tmp_path), "file://" + os.fspath(built.store.root)
    whole = start(tmp, uri, s3_server, "ddp-whole", 3, "whole")
    wait_all(whole, tmp, "whole")
    epoch = global_sequence(ids_per_rank(tmp, "whole", 3))[:len(built.ids)]
    assert sorted(epoch) == sorted(built.ids)

    killed = start(tmp, uri, s3_server, "ddp-run", 3, "killed", save_every=2, delay=0.3)
    deadline = time.monotonic() + DEADLINE_S
    while sum("saved" in line for line in lines(tmp, "killed", 0)) < 2:
        assert time.monotonic() < deadline and all(p.poll() is None for p in killed), "the job to kill ended early"
        time.sleep(0.05)
    time.sleep(0.45)  # into the next steps, past the checkpoint
    for p in killed:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)

    ckpt = Checkpoints(f"s3://{s3_server.bucket}", s3=s3_server.settings())
    newest = ckpt.latest("ddp-run")
    saved = [line["saved"] for line in lines(tmp, "killed", 0) if "saved" in line]
    assert newest.step in (saved[-1], saved[-1] + 2), "the newest complete checkpoint (or one finished unreported)"
    assert newest.manifest.world_size == 3 and newest.ranks == [0, 1, 2]
    assert newest.names(0) == ["rng", "model", "optim"] and newest.names(2) == ["rng"]
    consumed = newest.reader_state["consumed"]
    assert consumed == 3 * newest.step * 8
    assert [(d.dataset, d.version, d.snapshot_id) for d in newest.datasets] == [("cams", "v1", 4)]
    params_at = {line["step"]: line["params"] for line in lines(tmp, "killed", 0) if "step" in line}

    resumed = start(tmp, uri, s3_server, "ddp-run", 2, "resumed", save_every=2)
    wait_all(resumed, tmp, "resumed")
    first = lines(tmp, "resumed", 0)[0]
    assert first == {"resumed": newest.step, "params": params_at[newest.step]}, "the model as it was at that step"
    rest = global_sequence(ids_per_rank(tmp, "resumed", 2))
    assert rest[:len(epoch) - consumed] == epoch[consumed:], "the rest of the epoch, in the same order"
    assert set(rest[len(epoch) - consumed:]) <= set(epoch[consumed:]), "then only padding"
    steps_resumed = [line["step"] for line in lines(tmp, "resumed", 0) if "step" in line]
    assert steps_resumed[0] == newest.step + 1
    assert ckpt.latest("ddp-run").manifest.world_size == 2
