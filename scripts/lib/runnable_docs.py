"""Runs the code blocks of the documentation that are marked runnable, so a guide that drifts from the
code fails a test.

A block is runnable when the line just above its opening fence is a marker:

    <!-- runnable -->                      needs nothing but the checkout (and a built bin/shardflow)
    <!-- runnable: stack -->               runs against a local stack (SHARDFLOW_STACK_DIR is set)
    <!-- runnable: pipeline -->            a local stack plus ingest-app and shard-sink ($INGEST, $SINK)
    <!-- runnable: pipeline expect="RE" --> also: the output must match the regular expression RE
    <!-- runnable: pipeline ranks="N" -->  a python block run as N processes with the environment torchrun
                                           gives its ranks (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR,
                                           MASTER_PORT); it passes when every rank does. torchrun itself is
                                           not used: Debian's torch 1.13 launcher fails on Python 3.11

    <!-- not runnable: WHY -->            not run, for the reason given (docs_blocks.py: every bash or
                                           python block of a guide carries one of the two markers)

bash/sh/shell blocks run with `bash -euo pipefail` in the repository root, the project's Python first
on PATH (its scripts, such as shardflow-edge, with it); the shell blocks of one page share their
variables as one terminal would (a TOKEN set by one is there in the next). python blocks run with the
project's Python ($SHARDFLOW_PYTHON, else ~/.cache/shardflow/venv) and PYTHONPATH=python. The blocks
of all files run in document order, those that need nothing first; those that need servers share one
local pipeline (scripts/lib/local-pipeline.sh), started only if some block needs it, holding what
docs_fixtures.py makes (the quickstart's dataset demo/v1 with --demo-samples committed samples, so the
training guides read real data, and what the lifecycle and console guides act on).

usage: runnable_docs.py [--list | --coverage] [--pipeline-dir DIR] [FILE.md ...]
       (default: README.md and docs/**/*.md; --coverage counts runnable, not runnable and unmarked
       blocks and fails if one is unmarked, as every run does before it starts)
"""
import argparse
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

from docs_blocks import ROOT, collect, coverage, default_files  # noqa: F401 (collect, default_files: the tests use them)
from docs_fixtures import pipeline_env, prepare

NEEDS_ORDER = {"none": 0, "stack": 1, "pipeline": 2}

# Around a shell block that shares a page's variables: those its page's earlier blocks left, and after
# it, every variable it set or changed (bash's own left out) for the next.
SHELL_STATE_BEFORE = 'source "$1" 2>/dev/null || true\n__docs_before=$(declare -p)\n'
SHELL_STATE_AFTER = ('\ndeclare -p | grep -vxF -f <(printf "%s\\n" "$__docs_before") '
                     '| grep -vE "^declare -[-a-zA-Z]* (BASH[A-Z_]*|_|__docs_before|PIPESTATUS|FUNCNAME|LINENO|SECONDS|RANDOM|SRANDOM|'
                     'EPOCH[A-Z]*|SHLVL|PPID|PWD|OLDPWD|COLUMNS|LINES)=" >"$1" || true\n')

def python_for_blocks():
    configured = os.environ.get("SHARDFLOW_PYTHON")
    venv = pathlib.Path.home() / ".cache/shardflow/venv/bin/python"
    return configured or (str(venv) if venv.exists() else sys.executable)


def run(block, env, timeout, shell_state=None):
    """(passed, output) of one block; a shell block given a shell_state file starts with the variables
    it holds and leaves its own there."""
    python = python_for_blocks()
    env = dict(env, PATH=str(pathlib.Path(python).parent) + os.pathsep + env.get("PATH", os.defpath))
    if block.lang != "python":
        code = SHELL_STATE_BEFORE + block.code + SHELL_STATE_AFTER if shell_state else block.code
        command = ["bash", "-euo", "pipefail", "-c", code, "block"] + ([str(shell_state)] if shell_state else [])
        return _outcome(block, *_run_all([command], [env], timeout))
    env["PYTHONPATH"] = str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", "")
    if not block.ranks:
        return _outcome(block, *_run_all([[python, "-c", block.code]], [env], timeout))
    with tempfile.TemporaryDirectory(prefix="runnable-block-") as scratch:
        script = pathlib.Path(scratch, "block.py")
        script.write_text(block.code)
        port = str(_free_port())
        envs = [dict(env, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(block.ranks), LOCAL_WORLD_SIZE=str(block.ranks),
                     MASTER_ADDR="127.0.0.1", MASTER_PORT=port) for r in range(block.ranks)]
        return _outcome(block, *_run_all([[python, str(script)]] * block.ranks, envs, timeout))


def _run_all(commands, envs, timeout):
    """(exit codes, output) of commands run side by side, each in its own process group so that one past
    the deadline is stopped with every process it started; the output of several is prefixed by rank."""
    with tempfile.TemporaryDirectory(prefix="runnable-out-") as outs:
        logs = [open(pathlib.Path(outs, f"{n}.log"), "w+") for n in range(len(commands))]
        processes = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, text=True,
                                      start_new_session=True) for command, env, log in zip(commands, envs, logs)]
        deadline, codes = time.monotonic() + timeout, []
        for process in processes:
            try:
                codes.append(process.wait(timeout=max(0.1, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                codes.append(None)
        for process, code in zip(processes, codes):
            if code is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        texts = []
        for log in logs:
            log.seek(0)
            texts.append(log.read())
            log.close()
    if len(texts) == 1:
        return codes, texts[0]
    return codes, "".join(f"[rank {n}] {line}\n" for n, text in enumerate(texts) for line in text.splitlines())


def _outcome(block, codes, output):
    if None in codes:
        return False, f"timed out after the deadline\n{output}"
    if any(codes):
        return False, f"exit code {max(codes, key=abs)}\n{output}"
    if block.expect and not re.search(block.expect, output, re.M):
        return False, f"output does not match /{block.expect}/\n{output}"
    return True, output


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--list", action="store_true", help="list the runnable blocks and run nothing")
    parser.add_argument("--coverage", action="store_true",
                        help="count runnable, not runnable and unmarked code blocks; fail if one is unmarked")
    parser.add_argument("--timeout", type=int, default=900, help="seconds one block may take")
    parser.add_argument("--demo-samples", type=int, default=2000, help="samples of demo/v1 in the local pipeline")
    parser.add_argument("--pipeline-dir", type=pathlib.Path,
                        help="use the pipeline already up there (local-pipeline.sh up DIR) and leave it running")
    args = parser.parse_args(argv)
    files = args.files or default_files()
    blocks = [block for path in files for block in collect(path)]
    if args.list:
        for block in blocks:
            print(f"{block.where()}  {block.lang}  needs {block.needs}")
        return 0
    unmarked = coverage(files, sys.stdout)
    if unmarked or args.coverage:
        return 1 if unmarked else 0
    failures = 0
    env = dict(os.environ, SHARDFLOW_PROGRESS="off")
    with tempfile.TemporaryDirectory(prefix="runnable-docs-") as workdir:
        pipeline = args.pipeline_dir or pathlib.Path(workdir) / "pipeline"
        started = ready = False
        try:
            for block in sorted(blocks, key=lambda b: NEEDS_ORDER[b.needs]):
                if block.needs != "none" and not ready:
                    started = args.pipeline_dir is None
                    env = dict(pipeline_env(pipeline, start=started), SHARDFLOW_PROGRESS="off")
                    ready = True
                    prepare(env, args.demo_samples, args.timeout)
                shell_state = pathlib.Path(workdir, re.sub(r"[^A-Za-z0-9]", "_", str(block.path)) + ".sh")
                begun = time.monotonic()
                passed, output = run(block, env, args.timeout, shell_state)
                print(f"{'PASS' if passed else 'FAIL'} {block.where()} ({block.lang}, needs {block.needs}, "
                      f"{time.monotonic() - begun:.0f} s)", flush=True)
                if not passed:
                    failures += 1
                    print("    " + "\n    ".join(output.rstrip().splitlines()[-30:]), flush=True)
        finally:
            if started:
                subprocess.run(["bash", str(ROOT / "scripts/lib/local-pipeline.sh"), "down", str(pipeline)])
    print(f"runnable docs: {len(blocks) - failures} of {len(blocks)} blocks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
