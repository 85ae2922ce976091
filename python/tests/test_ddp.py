"""A real multi-process job: one process per rank (gloo over 127.0.0.1, an all_reduce every step,
ShardflowDataLoader with 2 DataLoader workers each) on a snapshot whose 151 samples in 11 shards do
not divide by 3. It must finish with every rank taking the same number of steps; killed with
SIGKILL mid-epoch, it resumes on 2 ranks from the saved state with exactly the rest of the epoch."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch", reason="torch is not installed")
JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ddp_job.py")
DEADLINE_S = 180


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp, uri, dataset, version, world_size, tag, resume=None, delay=0.0, workers=2, batch_size=8,
          snapshot=None):
    port = free_port()
    procs = []
    for rank in range(world_size):
        cmd = [sys.executable, JOB, "--uri", uri, "--dataset", dataset, "--version", version, "--rank", str(rank),
               "--world-size", str(world_size), "--port", str(port), "--workers", str(workers),
               "--batch-size", str(batch_size), "--out", os.path.join(tmp, f"{tag}-{rank}.jsonl"),
               "--cache-dir", os.path.join(tmp, "cache"), "--step-delay", str(delay)]
        if resume is not None:
            cmd += ["--resume", resume]
        if snapshot is not None:
            cmd += ["--snapshot", str(snapshot)]
        log = open(os.path.join(tmp, f"{tag}-{rank}.log"), "w")
        procs.append(subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT))
    return procs


def wait_all(procs, tmp, tag):
    deadline = time.monotonic() + DEADLINE_S
    for rank, p in enumerate(procs):
        try:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            pytest.fail(f"the job did not finish within {DEADLINE_S} s (a rank waiting for the others?): "
                        + open(os.path.join(tmp, f"{tag}-{rank}.log")).read()[-3000:])
        assert p.returncode == 0, open(os.path.join(tmp, f"{tag}-{rank}.log")).read()[-3000:]


def steps(tmp, tag, rank):
    path = os.path.join(tmp, f"{tag}-{rank}.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.endswith("\n")]
    return [line for line in lines if "step" in line]


def global_sequence(per_rank):
    """The epoch order as the job consumed it: rank r's i-th sample is remainder offset r + N*i."""
    length = max(len(s) for s in per_rank)
    return [s[i] for i in range(length) for s in per_rank if i < len(s)]


def run_and_resume(tmp, uri, dataset, version, samples, snapshot=None):
    whole = start(tmp, uri, dataset, version, 3, "whole", snapshot=snapshot)
    wait_all(whole, tmp, "whole")
    runs = [steps(tmp, "whole", r) for r in range(3)]
    assert len({len(r) for r in runs}) == 1, f"every rank the same number of steps: {[len(r) for r in runs]}"
    assert all(line["all_reduce"] == sum(len(r[line["step"]]["ids"]) for r in runs) for line in runs[0])
    per_rank = [[i for line in r for i in line["ids"]] for r in runs]
    assert len({len(s) for s in per_rank}) == 1 and set(i for s in per_rank for i in s) == set(samples)
    epoch = global_sequence(per_rank)[:len(samples)]
    assert sorted(epoch) == sorted(samples), "the uninterrupted run read every sample once (then padding)"

    killed = start(tmp, uri, dataset, version, 3, "killed", delay=0.4, snapshot=snapshot)
    deadline = time.monotonic() + DEADLINE_S
    while min(len(steps(tmp, "killed", r)) for r in range(3)) < 2:
        assert time.monotonic() < deadline and all(p.poll() is None for p in killed), "the job to kill ended early"
        time.sleep(0.05)
    os.kill(killed[1].pid, signal.SIGKILL)  # one rank dies mid-epoch; the job is then killed whole
    for p in killed:
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    done = [steps(tmp, "killed", r) for r in range(3)]
    last = min(len(d) for d in done) - 1  # the last step every rank finished
    states = [d[last]["state"] for d in done]
    assert all(s == states[0] for s in states), "ranks in lockstep save the same state"
    consumed = states[0]["consumed"]
    assert 0 < consumed < len(samples) and consumed == 3 * (last + 1) * 8
    state_file = os.path.join(tmp, "state.json")
    with open(state_file, "w") as f:
        json.dump(states[0], f)

    resumed = start(tmp, uri, dataset, version, 2, "resumed", resume=state_file, snapshot=snapshot)
    wait_all(resumed, tmp, "resumed")
    runs = [steps(tmp, "resumed", r) for r in range(2)]
    assert len(runs[0]) == len(runs[1]) > 0
    rest = global_sequence([[i for line in r for i in line["ids"]] for r in runs])
    assert rest[:len(samples) - consumed] == epoch[consumed:], "the rest of the epoch, in the same order"
    assert set(rest[len(samples) - consumed:]) <= set(epoch[consumed:]), "then only padding from the rest"


def test_should_finish_with_equal_steps_and_resume_a_killed_job_on_two_ranks(built, tmp_path):
    uri = "file://" + os.fspath(built.store.root)
    run_and_resume(os.fspath(tmp_path), uri, "cams", "v1", built.ids)
