"""Object stores the reader works on: S3 (MinIO, S3Proxy, AWS) through boto3, and a local directory.

The interface is :class:`~shardflow.storage.objectstore.ObjectStore`; :mod:`shardflow.storage.s3` and
:mod:`shardflow.storage.directory` hold the two stores. They are all importable from here too.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Mapping, Union
from urllib.parse import urlparse

from shardflow.storage.directory import DirectoryStore
from shardflow.storage.objectstore import CHUNK, RANGE_READ_CHUNK, ObjectStore
from shardflow.storage.s3 import S3Settings, S3Store

__all__ = ["CHUNK", "RANGE_READ_CHUNK", "DirectoryStore", "ObjectStore", "S3Settings", "S3Store", "open_store"]


def open_store(uri: str, s3: Union[None, ObjectStore, S3Settings, Mapping[str, str]] = None) -> ObjectStore:
    """The store for ``uri``: ``s3://bucket`` (settings from ``s3``, then the environment) or
    ``file:///path``. An :class:`ObjectStore` passed as ``s3`` is used as it is."""
    if isinstance(s3, ObjectStore):
        return s3
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return DirectoryStore(parsed.path)
    if parsed.scheme != "s3" or not parsed.netloc:
        raise ValueError(f"dataset uri {uri!r} must look like s3://bucket (or file:///path/to/copy)")
    if parsed.path not in ("", "/"):
        raise ValueError(f"dataset uri {uri!r}: datasets live at the bucket root, give s3://{parsed.netloc} only")
    if s3 is None:
        settings = S3Settings()
    elif isinstance(s3, S3Settings):
        settings = s3
    elif isinstance(s3, Mapping):
        known = [f.name for f in fields(S3Settings)]
        unknown = set(s3) - set(known)
        if unknown:
            raise ValueError(f"unknown s3 settings {sorted(unknown)}; use {', '.join(known)}")
        settings = S3Settings(**s3)
    else:
        raise TypeError(f"s3 must be an ObjectStore, S3Settings or a dict of settings, not {type(s3).__name__}")
    return S3Store(parsed.netloc, settings.over(S3Settings.from_env()))
