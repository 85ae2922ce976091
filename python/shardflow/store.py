"""Object stores the reader works on: S3 (MinIO, S3Proxy, AWS) through boto3, and a local directory.

A store only needs ``get``, ``list_keys`` (sorted, for the commit log only: readers never list
``shards/``), ``download`` and, for tests and tools that write, ``put_if_absent``.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field, fields, replace
from typing import BinaryIO, Iterator, Mapping, Optional, Union
from urllib.parse import urlparse

from shardflow.errors import ObjectNotFoundError

CHUNK = 1 << 20
RANGE_READ_CHUNK = 8 << 20


class ObjectStore:
    """What the reader needs from a bucket. Keys are ``/``-separated, relative to the bucket root."""

    def get(self, key: str) -> Optional[bytes]:
        """The object's bytes, or None if there is no such object."""
        raise NotImplementedError

    def list_keys(self, prefix: str, start_after: Optional[str] = None, limit: Optional[int] = None) -> Iterator[str]:
        """Keys under ``prefix`` that sort after ``start_after``, in lexical order, at most ``limit``."""
        raise NotImplementedError

    def download(self, key: str, out: BinaryIO) -> int:
        """Streams the object into ``out``; returns the byte count. Raises ObjectNotFoundError."""
        raise NotImplementedError

    def read_into(self, key: str, out: memoryview, start: int = 0) -> int:
        """Reads the object's bytes ``start .. start + len(out)`` into ``out`` and returns the object's
        whole size, so a caller expecting a size learns of an object that has another (and then fewer
        bytes than ``len(out)`` may have been written). Raises ObjectNotFoundError.

        This fallback downloads the whole object; stores that can read a range override it."""
        buffer = io.BytesIO()
        size = self.download(key, buffer)
        data = buffer.getbuffer()
        n = max(0, min(len(out), size - start))
        out[:n] = data[start:start + n]
        return size

    def put_if_absent(self, key: str, data: bytes) -> bool:
        """Create-only write (``If-None-Match: *``): False when the key already exists."""
        raise NotImplementedError


@dataclass(frozen=True)
class S3Settings:
    """Where the bucket is. Unset fields come from the environment, see :func:`S3Settings.from_env`.

    ``session_token`` goes with temporary credentials; ``ca_bundle`` is a PEM file of the CAs trusted
    for an https endpoint (this client only). Secrets never appear in ``repr``.
    """

    endpoint: Optional[str] = None
    access_key: Optional[str] = None
    secret_key: Optional[str] = field(default=None, repr=False)
    region: Optional[str] = None
    session_token: Optional[str] = field(default=None, repr=False)
    ca_bundle: Optional[str] = None

    @staticmethod
    def from_env(env: Optional[Mapping[str, str]] = None) -> "S3Settings":
        """``SHARDFLOW_S3_ENDPOINT`` / ``_ACCESS_KEY`` / ``_SECRET_KEY`` (or ``_SECRET_KEY_FILE``, a file
        holding it) / ``_SESSION_TOKEN`` / ``_CA_BUNDLE`` / ``_REGION``, else the standard
        ``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``,
        ``AWS_SESSION_TOKEN``, ``AWS_CA_BUNDLE``, ``AWS_REGION``, ``AWS_DEFAULT_REGION``; whatever is
        still unset is left to boto3's own chain (profile file, web identity token, ...)."""
        env = os.environ if env is None else env

        def first(*names):
            return next((env[n] for n in names if env.get(n)), None)

        secret_key = first("SHARDFLOW_S3_SECRET_KEY")
        if secret_key is None and env.get("SHARDFLOW_S3_SECRET_KEY_FILE"):
            with open(env["SHARDFLOW_S3_SECRET_KEY_FILE"], encoding="utf-8") as f:
                secret_key = f.read().strip()
        return S3Settings(
            endpoint=first("SHARDFLOW_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
            access_key=first("SHARDFLOW_S3_ACCESS_KEY", "AWS_ACCESS_KEY_ID"),
            secret_key=secret_key or first("AWS_SECRET_ACCESS_KEY"),
            region=first("SHARDFLOW_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"),
            session_token=first("SHARDFLOW_S3_SESSION_TOKEN", "AWS_SESSION_TOKEN"),
            ca_bundle=first("SHARDFLOW_S3_CA_BUNDLE", "AWS_CA_BUNDLE"))

    def over(self, fallback: "S3Settings") -> "S3Settings":
        """These settings, with the unset ones taken from ``fallback``."""
        return replace(fallback, **{k: v for k, v in self.__dict__.items() if v is not None})


class S3Store(ObjectStore):
    """One bucket through boto3. Path-style addressing when an endpoint is given (MinIO, S3Proxy).

    Picklable and fork-safe: the boto3 client is made lazily in each process (DataLoader workers
    must not share a parent's connection pool).
    """

    def __init__(self, bucket: str, settings: S3Settings):
        self.bucket = bucket
        self.settings = settings
        self._client = None
        self._session = None
        self._pid = None
        self._lock = threading.Lock()

    def __getstate__(self):
        return {"bucket": self.bucket, "settings": self.settings}

    def __setstate__(self, state):
        self.__init__(state["bucket"], state["settings"])

    def __repr__(self):
        return f"S3Store(s3://{self.bucket} at {self.settings.endpoint or 'AWS'})"

    @property
    def client(self):
        if self._client is None or self._pid != os.getpid():
            with self._lock:
                if self._client is None or self._pid != os.getpid():
                    import boto3
                    from botocore.config import Config

                    s = self.settings
                    config = Config(s3={"addressing_style": "path"} if s.endpoint else {},
                                    retries={"max_attempts": 5, "mode": "standard"},
                                    connect_timeout=10, read_timeout=60, max_pool_connections=16)
                    # A forked DataLoader worker reuses the session it inherited: the service model is
                    # then already parsed (a new client costs ~4 ms of CPU instead of ~40-90 ms);
                    # the client, and with it every connection, is always the process's own.
                    if self._session is None:
                        self._session = boto3.session.Session()
                    client = self._session.client(
                        "s3", endpoint_url=s.endpoint, aws_access_key_id=s.access_key,
                        aws_secret_access_key=s.secret_key, aws_session_token=s.session_token,
                        region_name=s.region or "us-east-1", verify=s.ca_bundle, config=config)
                    # boto3 1.26 has no IfNoneMatch parameter: add the header to every PutObject, which
                    # this store only issues from put_if_absent.
                    client.meta.events.register("before-sign.s3.PutObject", _if_none_match)
                    self._client, self._pid = client, os.getpid()
        return self._client

    def get(self, key):
        try:
            return self.client.get_object(Bucket=self.bucket, Key=key)["Body"].read()
        except Exception as e:  # noqa: BLE001 - botocore's error classes are made at run time
            if _is_not_found(e):
                return None
            raise

    def list_keys(self, prefix, start_after=None, limit=None):
        kwargs = {"Bucket": self.bucket, "Prefix": prefix}
        if start_after:
            kwargs["StartAfter"] = start_after
        if limit is not None:
            kwargs["PaginationConfig"] = {"MaxItems": limit, "PageSize": min(limit, 1000)}
        for page in self.client.get_paginator("list_objects_v2").paginate(**kwargs):
            for obj in page.get("Contents", ()):
                yield obj["Key"]

    def download(self, key, out):
        try:
            body = self.client.get_object(Bucket=self.bucket, Key=key)["Body"]
        except Exception as e:  # noqa: BLE001
            if _is_not_found(e):
                raise ObjectNotFoundError(f"s3://{self.bucket}/{key} does not exist") from None
            raise
        n = 0
        for chunk in body.iter_chunks(CHUNK):
            out.write(chunk)
            n += len(chunk)
        return n

    def read_into(self, key, out, start=0):
        if len(out) == 0:
            return super().read_into(key, out, start)
        try:
            response = self.client.get_object(Bucket=self.bucket, Key=key, Range=f"bytes={start}-{start + len(out) - 1}")
        except Exception as e:  # noqa: BLE001
            if _is_not_found(e):
                raise ObjectNotFoundError(f"s3://{self.bucket}/{key} does not exist") from None
            if _error_code(e) in ("InvalidRange", "416"):
                return start  # the object ends before ``start``: not the size the caller expects
            raise
        # "bytes 0-99/1234": the part after the slash is the whole object's size.
        content_range = response.get("ContentRange") or ""
        size = int(content_range.rsplit("/", 1)[1]) if "/" in content_range else response["ContentLength"]
        filled = 0
        # Big reads: urllib3 then hands over each chunk with little overhead (1 MiB reads cost ~25%).
        for chunk in response["Body"].iter_chunks(max(CHUNK, min(len(out), RANGE_READ_CHUNK))):
            n = min(len(chunk), len(out) - filled)
            out[filled:filled + n] = chunk[:n]
            filled += n
        return size

    def put_if_absent(self, key, data):
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data)
            return True
        except Exception as e:  # noqa: BLE001
            if _error_code(e) in ("PreconditionFailed", "412"):
                return False
            raise


def _if_none_match(request, **_):
    request.headers["If-None-Match"] = "*"


def _error_code(e: Exception) -> Optional[str]:
    response = getattr(e, "response", None)
    return str(response.get("Error", {}).get("Code")) if isinstance(response, dict) else None


def _is_not_found(e: Exception) -> bool:
    return _error_code(e) in ("NoSuchKey", "404", "NotFound")


class DirectoryStore(ObjectStore):
    """A local directory laid out like the bucket (e.g. a copy made with ``aws s3 sync``). Safe to
    share between processes; create-only writes use a hard link, which fails if the key exists."""

    def __init__(self, root: Union[str, os.PathLike]):
        self.root = os.path.abspath(os.fspath(root))

    def __repr__(self):
        return f"DirectoryStore({self.root})"

    def path(self, key: str) -> str:
        if key.startswith("/") or ".." in key.split("/"):
            raise ValueError(f"invalid object key {key!r}")
        return os.path.join(self.root, *key.split("/"))

    def get(self, key):
        try:
            with open(self.path(key), "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def list_keys(self, prefix, start_after=None, limit=None):
        base = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        top = self.path(base) if base else self.root
        keys = []
        for dirpath, _, files in os.walk(top):
            rel = os.path.relpath(dirpath, self.root)
            for name in files:
                if name.startswith(".tmp-"):
                    continue
                key = name if rel == "." else f"{rel.replace(os.sep, '/')}/{name}"
                if key.startswith(prefix) and (start_after is None or key > start_after):
                    keys.append(key)
        return iter(sorted(keys)[:limit])

    def download(self, key, out):
        try:
            with open(self.path(key), "rb") as f:
                shutil.copyfileobj(f, out, CHUNK)
                return f.tell()
        except FileNotFoundError:
            raise ObjectNotFoundError(f"{self.path(key)} does not exist") from None

    def read_into(self, key, out, start=0):
        try:
            with open(self.path(key), "rb") as f:
                size = os.fstat(f.fileno()).st_size
                f.seek(start)
                filled = 0
                while filled < len(out):
                    n = f.readinto(out[filled:])
                    if not n:
                        break
                    filled += n
                return size
        except FileNotFoundError:
            raise ObjectNotFoundError(f"{self.path(key)} does not exist") from None

    def put_if_absent(self, key, data):
        target = self.path(key)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.link(tmp, target)
            return True
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)


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
