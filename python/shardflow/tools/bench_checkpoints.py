"""Training checkpoint save and load against a raw multipart upload and a raw parallel ranged
download of the same bytes, with peak memory (figure P7, bench/results/checkpoints.md).

    SHARDFLOW_S3_ENDPOINT=... SHARDFLOW_S3_ACCESS_KEY=... SHARDFLOW_S3_SECRET_KEY=... \\
    python3 -m shardflow.tools.bench_checkpoints --bucket shardflow --mib 256 [--rounds 3] \\
        [--out bench/results/checkpoints.json --svg bench/results/checkpoints.svg]

Every measurement runs in a fresh process that first makes a float32 tensor of ``--mib`` MiB of
random values, then resets its peak RSS (``/proc/self/clear_refs``) and times one of:

- ``raw-upload``: boto3 CreateMultipartUpload, the tensor's bytes as parts of ``--part-mib`` MiB
  (one ``bytes`` slice each), ``--parallelism`` UploadPart calls at a time, CompleteMultipartUpload;
- ``save``: ``Checkpoints.save`` of ``{"model": {"w": tensor}}`` (torch.save format streamed,
  SHA-256, create-only multipart with the same part size and parallelism, the manifest and pointer);
- ``raw-download``: the raw object as ranged GETs of ``--part-mib`` MiB, ``--parallelism`` at a
  time (boto3 ``get_object(Range=...)["Body"].read()``), each copied into its place in one buffer of
  the object's size, in memory;
- ``fetch``: ``Checkpoint.download("model", path)``: the same ranged GETs written into a local
  file, with the SHA-256 check;
- ``load``: ``Checkpoints.load(...).load("model")``: the same ranged GETs copied straight into the
  tensor's memory, the SHA-256 check, torch's unpickler (:mod:`shardflow.checkpoints.torchload`).

Throughput is tensor bytes (10^6 per MB) per second. Peak memory is the process's peak RSS above
what it held before the timed part (for ``load`` and ``raw-download``, less the object's bytes
they keep in memory). A round runs the four back to back; a ratio is the median over rounds of the two times of
the same round.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

MIB = 1 << 20
MODES = ("raw-upload", "save", "raw-download", "fetch", "load")


def _rss(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def _child(args) -> Dict:
    import numpy as np
    import torch

    from shardflow.checkpoints import Checkpoints
    from shardflow.storage.store import S3Settings, S3Store

    store = S3Store(args.bucket, S3Settings.from_env())
    ckpt = Checkpoints(store, part_size=args.part_mib * MIB, parallelism=args.parallelism)
    store.client.list_objects_v2(Bucket=args.bucket, MaxKeys=1)  # the client and its connection made up front
    tensor = torch.from_numpy(np.random.default_rng(args.round).standard_normal(args.mib * MIB // 4, np.float32))
    raw_key = f"bench-checkpoints/raw-{args.round}"
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets the peak RSS to the current RSS
    before = _rss("VmRSS")
    start = time.perf_counter()
    if args.mode == "raw-upload":
        _raw_upload(store.client, args.bucket, raw_key, memoryview(tensor.numpy()).cast("B"), args)
    elif args.mode == "save":
        ckpt.save("bench-checkpoints", args.round, {"model": {"w": tensor}})
    elif args.mode == "raw-download":
        _raw_download(store.client, args.bucket, raw_key, tensor.numel() * 4, args)
    elif args.mode == "fetch":
        with tempfile.NamedTemporaryFile(dir=args.spool) as f:
            ckpt.load("bench-checkpoints", args.round).download("model", f.name)
    else:
        back = ckpt.load("bench-checkpoints", args.round).load("model")
    seconds = time.perf_counter() - start
    if args.mode == "load" and not torch.equal(back["w"], tensor):
        raise AssertionError("load gave other values than were saved")
    peak = _rss("VmHWM") - before - (tensor.numel() * 4 if args.mode in ("load", "raw-download") else 0)
    return {"mode": args.mode, "seconds": seconds, "bytes": tensor.numel() * 4, "peakExtraBytes": max(0, peak)}


def _raw_upload(client, bucket, key, data: memoryview, args) -> None:
    part = args.part_mib * MIB
    upload = client.create_multipart_upload(Bucket=bucket, Key=key)["UploadId"]

    def put(number: int) -> Dict:
        body = bytes(data[(number - 1) * part:number * part])
        etag = client.upload_part(Bucket=bucket, Key=key, UploadId=upload, PartNumber=number, Body=body)["ETag"]
        return {"PartNumber": number, "ETag": etag}

    with ThreadPoolExecutor(args.parallelism) as pool:
        parts = list(pool.map(put, range(1, (len(data) + part - 1) // part + 1)))
    client.complete_multipart_upload(Bucket=bucket, Key=key, UploadId=upload, MultipartUpload={"Parts": parts})


def _raw_download(client, bucket, key, size: int, args) -> bytearray:
    part = args.part_mib * MIB
    out = bytearray(size)

    def get(start: int) -> None:
        body = client.get_object(Bucket=bucket, Key=key, Range=f"bytes={start}-{start + part - 1}")["Body"].read()
        out[start:start + len(body)] = body

    with ThreadPoolExecutor(args.parallelism) as pool:
        list(pool.map(get, range(0, size, part)))
    return out


def _run_child(args, mode: str, round_: int) -> Dict:
    cmd = [sys.executable, "-m", "shardflow.tools.bench_checkpoints", "--child", mode, "--round", str(round_),
           "--bucket", args.bucket, "--mib", str(args.mib), "--part-mib", str(args.part_mib),
           "--parallelism", str(args.parallelism), "--spool", args.spool]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cleanup(args) -> None:
    from shardflow.storage.store import S3Settings, S3Store

    store = S3Store(args.bucket, S3Settings.from_env())
    for prefix in ("bench-checkpoints/", "runs/bench-checkpoints/"):
        for key in list(store.list_keys(prefix)):
            store.delete(key)


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--part-mib", type=int, default=16)
    parser.add_argument("--parallelism", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=None)
    parser.add_argument("--svg", default=None)
    parser.add_argument("--spool", default=tempfile.gettempdir())
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        args.mode = args.child
        print(json.dumps(_child(args)))
        return 0
    _cleanup(args)
    rounds = []
    for r in range(args.rounds):
        rounds.append({mode: _run_child(args, mode, r) for mode in MODES})
        print(json.dumps({m: round(x["seconds"], 3) for m, x in rounds[-1].items()}), file=sys.stderr)
        _cleanup(args)
    result = summarize(args, rounds)
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    if args.svg:
        from shardflow.tools.bench_checkpoints_plot import write_svg

        write_svg(result, args.svg)
    return 0


def summarize(args, rounds: List[Dict]) -> Dict:
    size = rounds[0]["save"]["bytes"]

    def rate(mode):
        return size / 1e6 / statistics.median(r[mode]["seconds"] for r in rounds)

    return {
        "figure": "P7", "objectMiB": args.mib, "partMiB": args.part_mib, "parallelism": args.parallelism,
        "rounds": len(rounds), "boundBytes": args.part_mib * MIB * (args.parallelism + 1),
        "mbPerSecond": {m: round(rate(m), 1) for m in MODES},
        "saveVsRawUpload": round(statistics.median(r["raw-upload"]["seconds"] / r["save"]["seconds"]
                                                   for r in rounds), 3),
        "fetchVsRawDownload": round(statistics.median(r["raw-download"]["seconds"] / r["fetch"]["seconds"]
                                                      for r in rounds), 3),
        "loadVsRawDownload": round(statistics.median(r["raw-download"]["seconds"] / r["load"]["seconds"]
                                                     for r in rounds), 3),
        "peakExtraBytes": {m: max(r[m]["peakExtraBytes"] for r in rounds) for m in MODES},
        "raw": rounds,
    }


if __name__ == "__main__":
    sys.exit(main())
