"""What the guides' runnable blocks find on the local pipeline before the first of them runs, as a
reader would after the quickstart and the command-line guide:

- demo/v1 (the quickstart's dataset: a float32 3x32x32 image and an int64 label) with `samples`
  committed samples, so the training guides read real data;
- cams/v1 (the command-line guide's dataset, same spec) holding CAM07_SAMPLES samples of the device
  cam-07, which the lifecycle guide deletes ("a faulty sensor");
- DEAD_LETTERS samples published for cams/v2, a version that does not exist, so the dead-letter
  topic holds that many UNKNOWN_VERSION records for the console guide's redrive.
"""
import json
import pathlib
import re
import subprocess
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHARDFLOW = str(ROOT / "bin/shardflow")
CAM07_SAMPLES = 200
DEAD_LETTERS = 3
SPEC = ["--tensor", "image:float32:3x32x32", "--tensor", "label:int64", "--label", "label"]


def pipeline_env(workdir, start=True):
    """Starts the local pipeline (unless it is up already) and returns the environment its pipeline.env describes."""
    if start:
        subprocess.run(["bash", str(ROOT / "scripts/lib/local-pipeline.sh"), "up", str(workdir)], check=True)
    exported = subprocess.run(["bash", "-c", f"source {workdir}/pipeline.env && env -0"], check=True,
                              stdout=subprocess.PIPE, text=True).stdout
    return dict(item.split("=", 1) for item in exported.split("\0") if "=" in item)


def committed(env, name, version):
    """Samples in the latest snapshot of a dataset version; 0 when it has none (or does not exist)."""
    shown = subprocess.run([SHARDFLOW, "dataset", "show", name, version, "--json", "--no-label-counts"], cwd=ROOT, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return (json.loads(shown.stdout).get("snapshot") or {}).get("samples", 0) if shown.returncode == 0 else 0


def dead_letters(env, reason):
    """Records ingest-app dead-lettered with a reason, from its metrics."""
    text = urllib.request.urlopen(f"{env['INGEST']}/metrics", timeout=10).read().decode()
    pattern = re.compile(r'^shardflow_ingest_samples_rejected_total\{[^}]*reason="' + reason + r'"[^}]*\} ([0-9.eE+]+)$', re.M)
    return sum(float(value) for value in pattern.findall(text))


def prepare(env, samples, timeout):
    """Makes the datasets and dead letters above, unless a pipeline given with --pipeline-dir holds them already."""
    wanted = {("demo", "v1"): samples, ("cams", "v1"): CAM07_SAMPLES}
    if all(committed(env, *dataset) >= count for dataset, count in wanted.items()):
        return
    begun = time.monotonic()
    quiet = dict(cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run([SHARDFLOW, "dataset", "create", "--name", "demo", "--version", "v1", *SPEC,
                    "--author", "docs", "--description", "the quickstart's dataset"], **quiet)
    subprocess.run([SHARDFLOW, "dataset", "create", "--name", "cams", "--version", "v1", *SPEC,
                    "--author", "ana", "--description", "front cameras"], **quiet)
    publishers = [["--dataset", "demo", "--version", "v1", "--count", str(samples)],
                  ["--dataset", "cams", "--version", "v1", "--count", str(CAM07_SAMPLES), "--device", "cam-07"],
                  ["--dataset", "cams", "--version", "v2", "--count", str(DEAD_LETTERS), "--device", "cam-09"]]
    running = [subprocess.Popen([SHARDFLOW, "publish", *arguments], cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
               for arguments in publishers]
    if any(process.wait() for process in running):
        raise RuntimeError("publishing the guides' samples failed")
    deadline = time.monotonic() + timeout
    while True:
        held = {dataset: committed(env, *dataset) for dataset in wanted}
        rejected = dead_letters(env, "UNKNOWN_VERSION")
        if all(held[dataset] >= count for dataset, count in wanted.items()) and rejected >= DEAD_LETTERS:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"after {timeout} s: {held} committed, {rejected:.0f} dead letters (want {wanted}, {DEAD_LETTERS})")
        time.sleep(3)
    print(f"runnable docs: demo/v1 holds {held[('demo', 'v1')]} samples, cams/v1 {held[('cams', 'v1')]} of cam-07, "
          f"{rejected:.0f} dead letters for cams/v2 ({time.monotonic() - begun:.0f} s)", flush=True)
