"""Object keys of a dataset version in the bucket (dataset/FORMAT.md, "Object keys").

```
datasets/<dataset>/<version>/spec.json
datasets/<dataset>/<version>/log/00000000000000000001.json      commit entry = snapshot 1
datasets/<dataset>/<version>/shards/lane-00003/shard-000000000042.h5
```
"""

from __future__ import annotations

import re
from typing import Optional

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
TENSOR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
SHARD_ID = re.compile(r"([^/]+)/([^/]+)/lane-(\d{5})/shard-(\d{12})")
_COMMIT_FILE = re.compile(r"(\d{20})\.json")


def require_name(what: str, value: str) -> str:
    if not isinstance(value, str) or not NAME.fullmatch(value):
        raise ValueError(f"{what} {value!r} is invalid: expected 1-128 characters of letters, digits, '.', '_' "
                         f"or '-', starting with a letter or digit")
    return value


def version_prefix(dataset: str, version: str) -> str:
    return f"datasets/{require_name('dataset name', dataset)}/{require_name('dataset version', version)}/"


def spec_key(dataset: str, version: str) -> str:
    return version_prefix(dataset, version) + "spec.json"


def log_prefix(dataset: str, version: str) -> str:
    return version_prefix(dataset, version) + "log/"


def commit_key(dataset: str, version: str, snapshot_id: int) -> str:
    if snapshot_id < 1:
        raise ValueError(f"commit snapshot ids start at 1, got {snapshot_id}")
    return f"{log_prefix(dataset, version)}{snapshot_id:020d}.json"


def snapshot_id_of(dataset: str, version: str, key: str) -> Optional[int]:
    """The snapshot id of a commit-entry key, or None for any other key under the log prefix."""
    prefix = log_prefix(dataset, version)
    if not key.startswith(prefix):
        return None
    m = _COMMIT_FILE.fullmatch(key[len(prefix):])
    return int(m.group(1)) if m else None


def shard_key(dataset: str, version: str, lane: int, sequence: int) -> str:
    return f"{version_prefix(dataset, version)}shards/lane-{lane:05d}/shard-{sequence:012d}.h5"


def shard_id(dataset: str, version: str, lane: int, sequence: int) -> str:
    return f"{dataset}/{version}/lane-{lane:05d}/shard-{sequence:012d}"


# ---- checkpoints: datasets/<d>/<v>/checkpoints/<descending id>-<id>.json.gz ---------------------
# The descending part is the 20-digit id with every digit d replaced by 9 - d, so keys sort newest
# first and one LIST (max 1 key) finds the newest checkpoint at or below any id.

_CHECKPOINT_FILE = re.compile(r"(\d{20})-(\d{20})\.json\.gz")


def checkpoint_prefix(dataset: str, version: str) -> str:
    return version_prefix(dataset, version) + "checkpoints/"


def _descending(snapshot_id: int) -> str:
    return "".join(str(9 - int(d)) for d in f"{snapshot_id:020d}")


def checkpoint_key(dataset: str, version: str, snapshot_id: int) -> str:
    if snapshot_id < 1:
        raise ValueError(f"checkpoint snapshot ids start at 1, got {snapshot_id}")
    return f"{checkpoint_prefix(dataset, version)}{_descending(snapshot_id)}-{snapshot_id:020d}.json.gz"


def checkpoint_search_start(dataset: str, version: str, at_most: int) -> str:
    """The LIST start-after whose first result is the newest checkpoint with id ``<= at_most``."""
    return checkpoint_prefix(dataset, version) + _descending(at_most)


def checkpoint_id_of(dataset: str, version: str, key: str) -> Optional[int]:
    prefix = checkpoint_prefix(dataset, version)
    if not key.startswith(prefix):
        return None
    m = _CHECKPOINT_FILE.fullmatch(key[len(prefix):])
    if not m:
        return None
    snapshot_id = int(m.group(2))
    return snapshot_id if snapshot_id >= 1 and m.group(1) == _descending(snapshot_id) else None
