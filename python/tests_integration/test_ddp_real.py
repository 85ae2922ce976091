"""The multi-process job of python/tests/test_ddp.py (gloo, an all_reduce every step, 3 ranks x 2
DataLoader workers, then killed with SIGKILL and resumed on 2 ranks) on the dataset the real
pipeline wrote into the real S3 server: 400 samples, which do not divide by 3."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
pytest.importorskip("torch")

from test_ddp import run_and_resume  # noqa: E402


def test_should_finish_with_equal_steps_and_resume_a_killed_job_on_two_ranks_on_the_real_server(
        expected, tmp_path):
    assert len(expected["samples"]) % 3 != 0
    run_and_resume(os.fspath(tmp_path), expected["uri"], expected["dataset"], expected["version"],
                   list(expected["samples"]), snapshot=expected["snapshotId"])
