"""Runs the code blocks of the documentation that are marked runnable, so a guide that drifts from the
code fails a test.

A block is runnable when the line just above its opening fence is a marker:

    <!-- runnable -->                      needs nothing but the checkout (and a built bin/shardflow)
    <!-- runnable: stack -->               runs against a local stack (SHARDFLOW_STACK_DIR is set)
    <!-- runnable: pipeline -->            a local stack plus ingest-app and shard-sink ($INGEST, $SINK)
    <!-- runnable: pipeline expect="RE" --> also: the output must match the regular expression RE

bash/sh/shell blocks run with `bash -euo pipefail` in the repository root; python blocks with the
project's Python ($SHARDFLOW_PYTHON, else ~/.cache/shardflow/venv) and PYTHONPATH=python. The blocks of
all files run in document order, those that need nothing first; those that need servers share one
local pipeline (scripts/lib/local-pipeline.sh), started only if some block needs it.

usage: runnable_docs.py [--list] [FILE.md ...]   (default: README.md and docs/**/*.md)
"""
import argparse
import dataclasses
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r'^<!--\s*runnable(?::\s*(?P<needs>none|stack|pipeline))?(?:\s+expect="(?P<expect>[^"]*)")?\s*-->\s*$')
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
        blocks.append(Block(pathlib.Path(path).resolve(), i + 2, lang, "\n".join(body) + "\n",
                            marker.group("needs") or "none", marker.group("expect")))
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
    if block.lang == "python":
        command = [python_for_blocks(), "-c", block.code]
        env = dict(env, PYTHONPATH=str(ROOT / "python") + os.pathsep + env.get("PYTHONPATH", ""))
    else:
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, text=True)
    except subprocess.TimeoutExpired as expired:
        return False, f"timed out after {timeout} s\n{expired.stdout or ''}"
    output = done.stdout
    if done.returncode != 0:
        return False, f"exit code {done.returncode}\n{output}"
    if block.expect and not re.search(block.expect, output, re.M):
        return False, f"output does not match /{block.expect}/\n{output}"
    return True, output


def pipeline_env(workdir):
    """Starts the local pipeline and returns the environment its pipeline.env describes."""
    subprocess.run(["bash", str(ROOT / "scripts/lib/local-pipeline.sh"), "up", str(workdir)], check=True)
    exported = subprocess.run(["bash", "-c", f"source {workdir}/pipeline.env && env -0"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    return dict(item.split("=", 1) for item in exported.split("\0") if "=" in item)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--list", action="store_true", help="list the runnable blocks and run nothing")
    parser.add_argument("--timeout", type=int, default=600, help="seconds one block may take")
    args = parser.parse_args(argv)
    blocks = [block for path in (args.files or default_files()) for block in collect(path)]
    if args.list:
        for block in blocks:
            print(f"{block.where()}  {block.lang}  needs {block.needs}")
        return 0
    failures = 0
    env = dict(os.environ, SHARDFLOW_PROGRESS="off")
    with tempfile.TemporaryDirectory(prefix="runnable-docs-") as workdir:
        started = False
        try:
            for block in sorted(blocks, key=lambda b: NEEDS_ORDER[b.needs]):
                if block.needs != "none" and not started:
                    env = dict(pipeline_env(pathlib.Path(workdir) / "pipeline"), SHARDFLOW_PROGRESS="off")
                    started = True
                passed, output = run(block, env, args.timeout)
                print(f"{'PASS' if passed else 'FAIL'} {block.where()} ({block.lang}, needs {block.needs})", flush=True)
                if not passed:
                    failures += 1
                    print("    " + "\n    ".join(output.rstrip().splitlines()[-30:]), flush=True)
        finally:
            if started:
                subprocess.run(["bash", str(ROOT / "scripts/lib/local-pipeline.sh"), "down", str(pathlib.Path(workdir) / "pipeline")])
    print(f"runnable docs: {len(blocks) - failures} of {len(blocks)} blocks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
