"""The shared test vectors (docs/reading-vectors.json) that readers in every language check:
this package must still produce them, and their SplitMix64 values must be SplitMix64's."""

import json
import os

from shardflow.reading.order import GOLDEN_GAMMA, mix64
from shardflow.tools.reading_vectors import CASES, VECTORS_FORMAT, vectors

VECTORS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "reading-vectors.json")


def test_should_still_produce_the_committed_vectors():
    with open(VECTORS) as f:
        committed = json.load(f)
    assert committed["format"] == VECTORS_FORMAT
    assert committed == json.loads(json.dumps(vectors())), \
        "the reading rules changed: regenerate with python3 -m shardflow.tools.reading_vectors, and port the change"
    assert len(committed["cases"]) == len(CASES) >= 7


def test_should_mix_as_splitmix64_does():
    # SplitMix64 seeded with 0: its first output is mix64(GOLDEN_GAMMA) = 0xE220A8397B1DCDAF (the
    # reference generator's published first value; Java: new SplittableRandom(0).nextLong()).
    assert mix64(GOLDEN_GAMMA) == 0xE220A8397B1DCDAF
    assert mix64(2 * GOLDEN_GAMMA) == 0x6E789E6AA1B965F4


def test_should_keep_every_case_consistent_with_its_own_rules():
    for case in vectors()["cases"]:
        want = case["expected"]
        assert want["samples"] == sum(want["counts"]) == len(want["order"])
        ranks = want["ranks"]
        assert len({r["length"] for r in ranks}) == 1, case["name"]
        for r in ranks:
            batches = [b for worker in r["workers"] for b in worker]
            assert sum(len(b) for b in batches) == r["length"], case["name"]
