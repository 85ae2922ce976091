"""Object keys of training checkpoints, beside the datasets in the same bucket (dataset/FORMAT.md,
"Training checkpoints"):

```
runs/<run>/step-<step>/MANIFEST.json                      the checkpoint exists once this exists
runs/<run>/step-<step>/<attempt>/rank-<rank>/<file>       the files a rank saved, named by the manifest
runs/<run>/latest/<descending step>-<step>.json           one pointer per complete step, create-only
runs/<run>/pins/<step>.json                               a pinned step (gc keeps it)
```

Steps are 20 digits, zero-padded, so keys sort by step. A pointer's name starts with the step's
digits each replaced by ``9 - d`` (as the commit log's checkpoints do), so the first key of a
listing of ``latest/`` is the newest pointer: one LIST of one key finds it, however many steps
there are. Training checkpoints are not the commit log's checkpoints (``datasets/.../checkpoints/``,
:mod:`shardflow.format.layout`), which only speed up opening a snapshot.
"""

from __future__ import annotations

import re
from typing import Optional

from shardflow.format.layout import require_name

MANIFEST = "MANIFEST.json"
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
ATTEMPT = re.compile(r"[0-9a-f]{16}")
_STEP = re.compile(r"step-(\d{20})/")
_POINTER = re.compile(r"(\d{20})-(\d{20})\.json")
_PIN = re.compile(r"(\d{20})\.json")
MAX_STEP = 10 ** 20 - 1


def require_step(step: int) -> int:
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= MAX_STEP:
        raise ValueError(f"step must be an integer in 0..{MAX_STEP}, got {step!r}")
    return step


def require_file_name(name: str) -> str:
    if not isinstance(name, str) or not FILE_NAME.fullmatch(name):
        raise ValueError(f"checkpoint file name {name!r} is invalid: expected 1-128 characters of letters, digits, "
                         f"'.', '_' or '-', starting with a letter or digit")
    return name


def runs_prefix() -> str:
    return "runs/"


def run_prefix(run: str) -> str:
    return f"runs/{require_name('run name', run)}/"


def steps_prefix(run: str) -> str:
    return run_prefix(run) + "step-"


def step_prefix(run: str, step: int) -> str:
    return f"{steps_prefix(run)}{require_step(step):020d}/"


def manifest_key(run: str, step: int) -> str:
    return step_prefix(run, step) + MANIFEST


def attempt_prefix(run: str, step: int, attempt: str) -> str:
    if not ATTEMPT.fullmatch(attempt):
        raise ValueError(f"attempt {attempt!r} is not 16 lowercase hex digits")
    return f"{step_prefix(run, step)}{attempt}/"


def file_key(run: str, step: int, attempt: str, rank: int, name: str) -> str:
    if not isinstance(rank, int) or not 0 <= rank <= 99999:
        raise ValueError(f"rank must be in 0..99999, got {rank!r}")
    return f"{attempt_prefix(run, step, attempt)}rank-{rank:05d}/{require_file_name(name)}"


def step_of_prefix(run: str, prefix: str) -> Optional[int]:
    """The step of a ``runs/<run>/step-<step>/`` folder, or None for anything else."""
    base = run_prefix(run)
    m = _STEP.fullmatch(prefix[len(base):]) if prefix.startswith(base) else None
    return int(m.group(1)) if m else None


def after_step(run: str, step: int) -> str:
    """A LIST start-after that skips every key of steps ``<= step``: ``step-<step>0`` sorts after
    ``step-<step>/...`` ('/' < '0') and before any ``step-<later>`` (same width, a higher digit)."""
    return f"{steps_prefix(run)}{require_step(step):020d}0"


def pointers_prefix(run: str) -> str:
    return run_prefix(run) + "latest/"


def _descending(step: int) -> str:
    return "".join(str(9 - int(d)) for d in f"{step:020d}")


def pointer_key(run: str, step: int) -> str:
    return f"{pointers_prefix(run)}{_descending(require_step(step))}-{step:020d}.json"


def step_of_pointer(run: str, key: str) -> Optional[int]:
    prefix = pointers_prefix(run)
    m = _POINTER.fullmatch(key[len(prefix):]) if key.startswith(prefix) else None
    if not m:
        return None
    step = int(m.group(2))
    return step if m.group(1) == _descending(step) else None


def pins_prefix(run: str) -> str:
    return run_prefix(run) + "pins/"


def pin_key(run: str, step: int) -> str:
    return f"{pins_prefix(run)}{require_step(step):020d}.json"


def step_of_pin(run: str, key: str) -> Optional[int]:
    prefix = pins_prefix(run)
    m = _PIN.fullmatch(key[len(prefix):]) if key.startswith(prefix) else None
    return int(m.group(1)) if m else None
