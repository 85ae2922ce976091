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

bash/sh/shell blocks run with `bash -euo pipefail` in the repository root, the project's Python first
on PATH (its scripts, such as shardflow-edge, with it); python blocks with the project's Python
($SHARDFLOW_PYTHON, else ~/.cache/shardflow/venv) and PYTHONPATH=python. The blocks of all files run
in document order, those that need nothing first; those that need servers share one local pipeline
(scripts/lib/local-pipeline.sh), started only if some block needs it, and holding the quickstart's
dataset demo/v1 (a float32 3x32x32 image and an int64 label) with --demo-samples committed samples,
so the training guides read real data.

usage: runnable_docs.py [--list] [--pipeline-dir DIR] [FILE.md ...]   (default: README.md and docs/**/*.md)
"""
import argparse
import dataclasses
import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r'^<!--\s*runnable(?::\s*(?P<needs>none|stack|pipeline))?(?P<attributes>(?:\s+[a-z]+="[^"]*")*)\s*-->\s*$')
ATTRIBUTE = re.compile(r'([a-z]+)="([^"]*)"')
ATTRIBUTES = {"expect", "ranks"}
FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[A-Za-z0-9_+-]*)")
SHELLS = {"bash", "sh", "shell", "console"}
NEEDS_ORDER = {"none": 0, "stack": 1, "pipeline": 2}


@dataclasses.dataclass
class Block:
    path: pathlib.Path
    line: int
    lang: str
    code: str
    needs: str
    expect: str | None
    ranks: int = 0

    def where(self):
        return f"{self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path}:{self.line}"


def collect(path):
    """The runnable blocks of one Markdown file; a marker not followed by a fenced block is an error."""
    lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
    blocks, i = [], 0
    while i < len(lines):
        marker = MARKER.match(lines[i].strip())
        if not marker:
            i += 1
            continue
        opening = FENCE.match(lines[i + 1].strip()) if i + 1 < len(lines) else None
        if not opening:
            raise ValueError(f"{path}:{i + 1}: a runnable marker must be followed by a fenced code block")
        lang = opening.group("lang").lower()
        if lang not in SHELLS and lang != "python":
            raise ValueError(f"{path}:{i + 2}: runnable blocks are bash or python, not '{lang or 'unlabelled'}'")
        body, j = [], i + 2
        while j < len(lines) and not lines[j].strip().startswith(opening.group("fence")):
            body.append(lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"{path}:{i + 2}: code block never closed")
        attributes = dict(ATTRIBUTE.findall(marker.group("attributes")))
        unknown = set(attributes) - ATTRIBUTES
        if unknown:
            raise ValueError(f"{path}:{i + 1}: unknown marker attribute {sorted(unknown)[0]!r} (known: {sorted(ATTRIBUTES)})")
        ranks = attributes.get("ranks", "0")
        if "ranks" in attributes and (lang != "python" or not ranks.isdigit() or int(ranks) < 1):
            raise ValueError(f"{path}:{i + 1}: ranks= is a number of processes, for python blocks only")
        blocks.append(Block(pathlib.Path(path).resolve(), i + 2, lang, "\n".join(body) + "\n",
                            marker.group("needs") or "none", attributes.get("expect"), int(ranks)))
        i = j + 1
    return blocks


def default_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))


def python_for_blocks():
    configured = os.environ.get("SHARDFLOW_PYTHON")
    venv = pathlib.Path.home() / ".cache/shardflow/venv/bin/python"
    return configured or (str(venv) if venv.exists() else sys.executable)


def run(block, env, timeout):
    """(passed, output) of one block."""
    python = python_for_blocks()
    env = dict(env, PATH=str(pathlib.Path(python).parent) + os.pathsep + env.get("PATH", os.defpath))
    if block.lang != "python":
        return _outcome(block, *_run_all([["bash", "-euo", "pipefail", "-c", block.code]], [env], timeout))
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


def pipeline_env(workdir, start=True):
    """Starts the local pipeline (unless it is up already) and returns the environment its pipeline.env describes."""
    if start:
        subprocess.run(["bash", str(ROOT / "scripts/lib/local-pipeline.sh"), "up", str(workdir)], check=True)
    exported = subprocess.run(["bash", "-c", f"source {workdir}/pipeline.env && env -0"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    return dict(item.split("=", 1) for item in exported.split("\0") if "=" in item)


def demo_dataset(env, samples, timeout):
    """The quickstart's dataset demo/v1 with `samples` committed samples, for the guides that read data."""
    shardflow = str(ROOT / "bin/shardflow")

    def committed():
        shown = subprocess.run([shardflow, "dataset", "show", "demo", "v1", "--json", "--no-label-counts"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return (json.loads(shown.stdout).get("snapshot") or {}).get("samples", 0) if shown.returncode == 0 else 0

    if committed() >= samples:  # a pipeline given with --pipeline-dir may hold it already
        return
    quiet = dict(cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([shardflow, "dataset", "create", "--name", "demo", "--version", "v1", "--tensor", "image:float32:3x32x32",
                    "--tensor", "label:int64", "--label", "label", "--author", "docs", "--description", "the quickstart's dataset"],
                   **quiet)
    subprocess.run([shardflow, "publish", "--dataset", "demo", "--version", "v1", "--count", str(samples)], **quiet)
    deadline = time.monotonic() + timeout
    while (held := committed()) < samples:
        if time.monotonic() > deadline:
            raise RuntimeError(f"demo/v1 holds {held} of {samples} samples after {timeout} s")
        time.sleep(3)
    print(f"runnable docs: demo/v1 holds {held} samples", flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--list", action="store_true", help="list the runnable blocks and run nothing")
    parser.add_argument("--timeout", type=int, default=900, help="seconds one block may take")
    parser.add_argument("--demo-samples", type=int, default=2000, help="samples of demo/v1 in the local pipeline")
    parser.add_argument("--pipeline-dir", type=pathlib.Path,
                        help="use the pipeline already up there (local-pipeline.sh up DIR) and leave it running")
    args = parser.parse_args(argv)
    blocks = [block for path in (args.files or default_files()) for block in collect(path)]
    if args.list:
        for block in blocks:
            print(f"{block.where()}  {block.lang}  needs {block.needs}")
        return 0
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
                    demo_dataset(env, args.demo_samples, args.timeout)
                passed, output = run(block, env, args.timeout)
                print(f"{'PASS' if passed else 'FAIL'} {block.where()} ({block.lang}, needs {block.needs})", flush=True)
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
