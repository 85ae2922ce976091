"""A create-only S3 upload streamed from ``write`` calls: parts of ``part_size`` bytes go up
``parallelism`` at a time while the next one fills, and the conditional CompleteMultipartUpload
(``If-None-Match: *``, added by :class:`~shardflow.storage.s3.S3Store`'s client) makes the object
appear only when everything is up (docs/ARCHITECTURE.md, invariant 3). An object smaller than one
part is one conditional PUT.

Memory is bounded by the part buffers: at most ``parallelism + 1`` of ``part_size`` bytes (one
filling, the others in flight); a writer that gets ahead of the uploads waits for a free buffer.
"""

from __future__ import annotations

import queue
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Optional, Tuple

from shardflow.storage.objectstore import CreateOnlyWriter, ObjectExistsError

MIN_PART_SIZE = 5 << 20
"""S3's smallest part (all but the last)."""


class S3MultipartWriter(CreateOnlyWriter):
    def __init__(self, client, bucket: str, key: str, part_size: int, parallelism: int):
        if part_size < MIN_PART_SIZE:
            raise ValueError(f"part_size must be at least {MIN_PART_SIZE} bytes (S3's smallest part), got {part_size}")
        if parallelism < 1:
            raise ValueError(f"parallelism must be >= 1, got {parallelism}")
        self._client, self._bucket, self.key = client, bucket, key
        self._part_size = part_size
        self._buffers_left = parallelism + 1
        self._free: "queue.Queue[bytearray]" = queue.Queue()
        self._pool = ThreadPoolExecutor(parallelism, thread_name_prefix="s3-part")
        self._parts: List[Tuple[int, Future]] = []
        self._upload_id: Optional[str] = None
        self._current: Optional[bytearray] = None
        self._filled = 0
        self._size = 0
        self._done = False

    def write(self, data) -> int:
        if self._done:
            raise ValueError(f"{self.key}: write after commit or abort")
        view = memoryview(data).cast("B")
        pos = 0
        while pos < len(view):
            if self._current is None:
                self._current, self._filled = self._take_buffer(), 0
            n = min(len(view) - pos, self._part_size - self._filled)
            self._current[self._filled:self._filled + n] = view[pos:pos + n]
            self._filled += n
            pos += n
            if self._filled == self._part_size:
                self._send(self._current)
                self._current = None
        self._size += len(view)
        return len(view)

    def commit(self) -> int:
        if self._done:
            raise ValueError(f"{self.key}: already committed or aborted")
        try:
            if self._upload_id is None:
                body = bytes(self._current[:self._filled]) if self._current is not None else b""
                self._current = None
                try:
                    self._client.put_object(Bucket=self._bucket, Key=self.key, Body=body)
                except Exception as e:  # noqa: BLE001 - botocore's error classes are made at run time
                    raise _exists_or(e, self.key) from None
            else:
                if self._current is not None and self._filled:
                    last = self._current
                    del last[self._filled:]  # the last part is shorter: shrink in place, no copy
                    self._current = None
                    self._send(last)
                parts = [{"PartNumber": n, "ETag": f.result()} for n, f in self._parts]
                try:
                    self._client.complete_multipart_upload(Bucket=self._bucket, Key=self.key,
                                                           UploadId=self._upload_id, MultipartUpload={"Parts": parts})
                except Exception as e:  # noqa: BLE001
                    raise _exists_or(e, self.key) from None
                self._upload_id = None
        except BaseException:
            self.abort()
            raise
        self._finish()
        return self._size

    def abort(self) -> None:
        if self._done:
            return
        self._finish()
        if self._upload_id is not None:
            upload_id, self._upload_id = self._upload_id, None
            try:
                self._client.abort_multipart_upload(Bucket=self._bucket, Key=self.key, UploadId=upload_id)
            except Exception:  # noqa: BLE001 - the upload stays invisible; a bucket lifecycle rule ends it
                pass

    # ---- internals -----------------------------------------------------------------------------

    def _finish(self):
        self._done = True
        self._current = None
        self._pool.shutdown(wait=True)
        self._free = queue.Queue()  # the buffers go with the writer

    def _take_buffer(self) -> bytearray:
        self._raise_failed_part()
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        if self._buffers_left > 0:
            self._buffers_left -= 1
            return bytearray(self._part_size)
        buffer = self._free.get()  # every buffer is in flight: wait for one to come back
        self._raise_failed_part()
        return buffer

    def _raise_failed_part(self):
        for _, future in self._parts:
            if future.done() and future.exception() is not None:
                raise future.exception()

    def _send(self, buffer: bytearray) -> None:
        if self._upload_id is None:
            self._upload_id = self._client.create_multipart_upload(Bucket=self._bucket, Key=self.key)["UploadId"]
        number = len(self._parts) + 1
        self._parts.append((number, self._pool.submit(self._upload, number, buffer)))

    def _upload(self, number: int, buffer: bytearray) -> str:
        try:
            response = self._client.upload_part(Bucket=self._bucket, Key=self.key, UploadId=self._upload_id,
                                                PartNumber=number, Body=buffer)
            return response["ETag"]
        finally:
            if len(buffer) == self._part_size:
                self._free.put(buffer)


def _exists_or(e: Exception, key: str) -> Exception:
    response = getattr(e, "response", None)
    code = str(response.get("Error", {}).get("Code")) if isinstance(response, dict) else None
    return ObjectExistsError(key) if code in ("PreconditionFailed", "412") else e
