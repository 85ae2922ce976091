"""A local directory laid out like the bucket, as an object store."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Union

from shardflow.errors import ObjectNotFoundError
from shardflow.storage.objectstore import CHUNK, CreateOnlyWriter, ObjectExistsError, ObjectStore


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

    def create_writer(self, key, part_size, parallelism):
        return _LinkOnCommit(self.path(key), key)

    def list_prefixes(self, prefix, start_after=None):
        base, _, start = prefix.rpartition("/")
        top = self.path(base) if base else self.root
        try:
            names = sorted(os.listdir(top))
        except FileNotFoundError:
            return iter(())
        folders = (f"{base}/{n}/" if base else f"{n}/" for n in names
                   if n.startswith(start) and os.path.isdir(os.path.join(top, n)))
        return iter([f for f in folders if start_after is None or f > start_after])

    def delete(self, key):
        path = self.path(key)
        try:
            os.unlink(path)
        except FileNotFoundError:
            return
        # Empty folders go too, as a bucket has no folders: list_prefixes must not show them.
        parent = os.path.dirname(path)
        while parent != self.root and parent.startswith(self.root):
            try:
                os.rmdir(parent)
            except OSError:
                break
            parent = os.path.dirname(parent)


class _LinkOnCommit(CreateOnlyWriter):
    """Writes a temporary file beside the target; commit hard-links it into place (fails if the
    key exists, like a create-only PUT)."""

    def __init__(self, target: str, key: str):
        self.key = key
        self._target = target
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd, self._tmp = tempfile.mkstemp(prefix=".tmp-", dir=os.path.dirname(target))
        self._file = os.fdopen(fd, "wb")
        self._size = 0

    def write(self, data):
        n = self._file.write(data)
        self._size += n
        return n

    def commit(self):
        try:
            self._file.close()
            os.link(self._tmp, self._target)
        except FileExistsError:
            raise ObjectExistsError(self.key) from None
        finally:
            self.abort()
        return self._size

    def abort(self):
        self._file.close()
        try:
            os.unlink(self._tmp)
        except FileNotFoundError:
            pass
