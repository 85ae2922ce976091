"""Reads batches of a dataset the way a PyTorch trainer does, rank by rank, for a Java test to compare
with the Java reader (docs/READING-RULES.md: both must give the same sample ids in the same order).

usage: read_rank_batches.py JOBS.json   prints {"results": [...]}, one per job

Each job: {"uri", "dataset", "version", "snapshot" (or null: the latest, or the resume state's),
"seed", "epoch", "shuffle_block", "drop_last", "world_size", "num_workers", "batch_size",
"resume" (a shardflow.read-state/2 state, or null), "stop_after" (batches per rank, or null: the
whole epoch)}. Every rank's batches come from a ShardflowDataLoader with num_workers worker
processes; the result holds each rank's batches as lists of sample ids, and each rank's
loader.state_dict() after its last batch as the JSON text a trainer would save.
"""
import json
import sys


def run(job):
    from shardflow import Dataset
    from shardflow.integrations.torch import ShardflowDataLoader, ShardflowIterableDataset

    ranks, states = [], []
    for rank in range(job["world_size"]):
        ds = Dataset(job["uri"], job["dataset"], job["version"], job.get("snapshot"))
        data = ShardflowIterableDataset(ds, seed=job["seed"], shuffle_block=job["shuffle_block"],
                                        drop_last=job["drop_last"], rank=rank, world_size=job["world_size"])
        loader = ShardflowDataLoader(data, batch_size=job["batch_size"], num_workers=job["num_workers"])
        if job.get("resume") is not None:
            loader.load_state_dict(job["resume"])
        else:
            data.set_epoch(job["epoch"])
        batches = []
        for batch in loader:
            batches.append([str(i) for i in batch["sample_id"]])
            if job.get("stop_after") is not None and len(batches) >= job["stop_after"]:
                break
        ranks.append(batches)
        states.append(json.dumps(loader.state_dict(), separators=(",", ":")))
    return {"ranks": ranks, "states": states}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        jobs = json.load(f)
    json.dump({"results": [run(job) for job in jobs]}, sys.stdout)


if __name__ == "__main__":
    main()
