"""kill -9 of a process saving training checkpoints into a real S3 server (MinIO, else S3Proxy), at
every stage of a save and at random moments: resume never returns a partial checkpoint and always
returns the newest complete one; the job started again goes on from there and every step it saved
verifies."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from shardflow.checkpoints import Checkpoints

torch = pytest.importorskip("torch")
JOB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ckpt_kill_job.py")
DEADLINE_S = 300  # a loaded machine starts torch slowly


class Job:
    def __init__(self, server, run, steps, pause=None, mib=12):
        cmd = [sys.executable, JOB, "--bucket", server.bucket, "--run", run, "--steps", str(steps), "--mib", str(mib)]
        if pause:
            cmd += ["--pause", pause]
        self.process = subprocess.Popen(cmd, env=dict(os.environ, **server.env()), stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.lines = []

    def read_until(self, predicate):
        deadline = time.monotonic() + DEADLINE_S
        for line in self.process.stdout:
            self.lines.append(line.strip())
            if predicate(line.strip()):
                return line.strip()
            assert time.monotonic() < deadline, "the job took too long:\n" + "\n".join(self.lines[-30:])
        pytest.fail("the job ended before the awaited line:\n" + "\n".join(self.lines[-30:]))

    def kill(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.lines += [line.strip() for line in self.process.stdout]
        assert self.process.returncode == -signal.SIGKILL

    def kill_unless_done(self):
        """Kills the job if it is still running; a job that finished its steps during the wait is reaped
        instead. Either way every line it printed is read, so the manifests it reported are all known."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.lines += [line.strip() for line in self.process.stdout]
        assert self.process.returncode in (-signal.SIGKILL, 0), self.lines[-12:]

    def finish(self):
        self.read_until(lambda line: line == "DONE")
        assert self.process.wait(timeout=60) == 0

    def manifests_reported(self):
        return [int(line.split()[2]) for line in self.lines if line.startswith("EVENT manifest-written")]


def check_saved(ckpt, run, step):
    restored = ckpt.load(run, step)
    assert restored.verify() == [], f"step {step} verifies"
    assert bool((restored.load("model")["w"] == float(step)).all()), f"step {step} holds its own values"
    assert restored.load("optim")[0] == step and restored.load("tail") == b"%d" % step * 1000
    stream = restored.load("stream")
    assert len(stream) == 12 << 20 and stream[:1] == bytes([step]) and stream[-1:] == bytes([step])


@pytest.fixture
def ckpt(s3_server):
    return Checkpoints(f"s3://{s3_server.bucket}", s3=s3_server.settings(), part_size=5 << 20, parallelism=3)


# (where the save of step 1 is killed, the step resume must find)
STAGES = [
    ("save-begin:1", 0),                  # before the save
    ("file-begin:1:optim", 0),            # between files (the model is up)
    ("stream:1", 0),                      # during a multipart upload (two parts up, not completed)
    ("file-written:1:stream", 0),         # every file up, before the manifest
    ("manifest-written:1", 1),            # after the manifest, before the pointer
    ("pointer-written:1", 1),             # after the pointer
]


@pytest.mark.parametrize("pause,expected", STAGES, ids=[s for s, _ in STAGES])
def test_should_resume_from_the_newest_complete_step_whatever_stage_the_save_was_killed_at(
        s3_server, ckpt, pause, expected):
    run = "kill-" + pause.replace(":", "-")
    job = Job(s3_server, run, steps=3, pause=pause)
    job.read_until(lambda line: line == "PAUSED")
    job.kill()

    restored = ckpt.resume(run)
    assert restored is not None and restored.step == expected, job.lines[-12:]
    check_saved(ckpt, run, expected)

    again = Job(s3_server, run, steps=3)
    assert again.read_until(lambda line: line.startswith("START")) == f"START {expected + 1}"
    again.finish()
    assert [m.step for m in ckpt.list(run)] == [0, 1, 2]
    for step in range(3):
        check_saved(ckpt, run, step)


def test_should_never_resume_a_partial_checkpoint_after_kills_at_random_moments(s3_server, ckpt):
    seed = random.randrange(1 << 30)
    rnd = random.Random(seed)
    run = f"kill-random-{seed}"
    for attempt in range(4):
        job = Job(s3_server, run, steps=6)
        start = int(job.read_until(lambda line: line.startswith("START")).split()[1])
        if start >= 6:
            job.finish()
            break
        target = rnd.randrange(start, 6)
        job.read_until(lambda line: line.startswith(f"EVENT save-begin {target}"))
        time.sleep(rnd.uniform(0.0, 1.5))  # somewhere in the save of step `target` (or just after it)
        job.kill_unless_done()  # a fast machine may finish every step within the wait
        reported = job.manifests_reported()
        restored = ckpt.resume(run)
        newest_reported = reported[-1] if reported else (start - 1)
        assert restored is not None or newest_reported < 0, f"seed {seed}"
        if restored is not None:
            # a manifest written just before the kill may not have been reported yet
            assert newest_reported <= restored.step <= newest_reported + 1, f"seed {seed}: {job.lines[-8:]}"
            check_saved(ckpt, run, restored.step)
    Job(s3_server, run, steps=6).finish()
    assert [m.step for m in ckpt.list(run)] == list(range(6)), f"seed {seed}"
    for step in range(6):
        check_saved(ckpt, run, step)
