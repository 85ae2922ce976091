"""S3 (MinIO, S3Proxy, AWS) through boto3: where the bucket is (:class:`S3Settings`) and the store."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

from shardflow.errors import ObjectNotFoundError
from shardflow.storage.multipart import S3MultipartWriter
from shardflow.storage.objectstore import CHUNK, RANGE_READ_CHUNK, ObjectStore


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
                    # boto3 1.26 has no IfNoneMatch parameter: add the header to every PutObject and
                    # CompleteMultipartUpload, which this store only issues for create-only writes
                    # (put_if_absent, create_writer).
                    client.meta.events.register("before-sign.s3.PutObject", _if_none_match)
                    client.meta.events.register("before-sign.s3.CompleteMultipartUpload", _if_none_match)
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
        _read_body(response, out)
        return size

    def put_if_absent(self, key, data):
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data)
            return True
        except Exception as e:  # noqa: BLE001
            if _error_code(e) in ("PreconditionFailed", "412"):
                return False
            raise

    def create_writer(self, key, part_size, parallelism):
        return S3MultipartWriter(self.client, self.bucket, key, part_size, parallelism)

    def list_prefixes(self, prefix, start_after=None):
        kwargs = {"Bucket": self.bucket, "Prefix": prefix, "Delimiter": "/"}
        if start_after:
            kwargs["StartAfter"] = start_after
        for page in self.client.get_paginator("list_objects_v2").paginate(**kwargs):
            for common in page.get("CommonPrefixes", ()):
                if not start_after or common["Prefix"] > start_after:
                    yield common["Prefix"]

    def delete(self, key):
        self.client.delete_object(Bucket=self.bucket, Key=key)  # S3 answers 204 for a missing key too


def _read_body(response, out: memoryview) -> int:
    """Reads a GetObject body into ``out`` (at most ``len(out)`` bytes); returns the count.

    The bytes go from the socket straight into ``out`` (``recv_into`` under http.client's
    ``readinto``): botocore's body only hands out new ``bytes``, which costs an allocation and a
    copy per chunk, about a third of a download's CPU. Where the body is not a plain http.client
    response (another urllib3, an encoded body), it is read chunk by chunk instead."""
    body = response["Body"]
    raw = getattr(body, "_raw_stream", None)
    fp = getattr(raw, "_fp", None)
    if fp is None or not hasattr(fp, "readinto") or not hasattr(raw, "release_conn") \
            or response.get("ContentEncoding"):
        return _read_chunks(body, out)
    filled = 0
    try:
        while filled < len(out):
            n = fp.readinto(out[filled:])
            if not n:
                break
            filled += n
    except BaseException:
        raw.close()  # a connection in an unknown state is never reused
        raise
    if fp.isclosed():  # the whole body was read: the connection can serve the next GET
        raw.release_conn()
    else:  # more bytes than asked for (a server that ignored the range): never reused
        raw.close()
    return filled


def _read_chunks(body, out: memoryview) -> int:
    filled = 0
    # Big reads: urllib3 then hands over each chunk with little overhead (1 MiB reads cost ~25%).
    for chunk in body.iter_chunks(max(CHUNK, min(len(out), RANGE_READ_CHUNK))):
        n = min(len(chunk), len(out) - filled)
        out[filled:filled + n] = chunk[:n]
        filled += n
    return filled


def _if_none_match(request, **_):
    request.headers["If-None-Match"] = "*"


def _error_code(e: Exception) -> Optional[str]:
    response = getattr(e, "response", None)
    return str(response.get("Error", {}).get("Code")) if isinstance(response, dict) else None


def _is_not_found(e: Exception) -> bool:
    return _error_code(e) in ("NoSuchKey", "404", "NotFound")
