"""The envelope every JSON document of the storage format shares: an object with ``formatVersion``."""

from __future__ import annotations

import json
from typing import Any, Dict

from shardflow.errors import FormatError

FORMAT_VERSION = 1


def load_format_json(data: bytes, where: str) -> Dict[str, Any]:
    """Parses a format document; unknown fields are kept (and ignored by callers), another version is refused."""
    try:
        root = json.loads(data)
    except ValueError as e:
        raise FormatError(f"{where} is not JSON: {e}") from None
    if not isinstance(root, dict):
        raise FormatError(f"{where} is not a JSON object")
    if root.get("formatVersion") != FORMAT_VERSION:
        raise FormatError(f"{where} has formatVersion {root.get('formatVersion')!r}, this reader understands "
                          f"only {FORMAT_VERSION}: upgrade shardflow")
    return root
