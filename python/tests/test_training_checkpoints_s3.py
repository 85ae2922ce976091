"""The storage operations training checkpoints rely on, against both real S3 servers the project
uses (MinIO and S3Proxy, each started as a process): a streamed multipart upload is create-only
(If-None-Match on CompleteMultipartUpload), an aborted one leaves nothing, folder listings honour
start-after; and the manifest format both languages share."""

import hashlib
import os

import pytest

import s3server
from shardflow.checkpoints import Checkpoints, Manifest
from shardflow.storage.objectstore import ObjectExistsError
from shardflow.storage.store import S3Settings, S3Store

MIB = 1 << 20
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


@pytest.fixture(scope="module", params=["minio", "s3proxy"])
def server(request, tmp_path_factory):
    started = s3server.start(os.fspath(tmp_path_factory.mktemp(request.param)), prefer=request.param)
    if started is None:
        pytest.skip(f"{request.param} is not installed (scripts/fetch-tools.sh)")
    yield started
    started.stop()


def test_should_create_a_multipart_object_only_once_and_leave_nothing_when_aborted(server):
    store = S3Store(server.bucket, S3Settings(**server.settings()))
    first = os.urandom(12 * MIB)
    writer = store.create_writer("mp/object", 5 * MIB, 3)
    for i in range(0, len(first), MIB):
        writer.write(first[i:i + MIB])
    assert writer.commit() == len(first)
    second = store.create_writer("mp/object", 5 * MIB, 3)
    second.write(os.urandom(11 * MIB))
    with pytest.raises(ObjectExistsError):
        second.commit()
    assert hashlib.sha256(store.get("mp/object")).digest() == hashlib.sha256(first).digest(), "never overwritten"
    small = store.create_writer("mp/small", 5 * MIB, 3)
    small.write(b"one part")
    small.commit()
    again = store.create_writer("mp/small", 5 * MIB, 3)
    again.write(b"other")
    with pytest.raises(ObjectExistsError):
        again.commit()
    aborted = store.create_writer("mp/aborted", 5 * MIB, 2)
    aborted.write(os.urandom(11 * MIB))
    aborted.abort()
    assert store.get("mp/aborted") is None
    uploads = store.client.list_multipart_uploads(Bucket=server.bucket, Prefix="mp/").get("Uploads", [])
    assert uploads == [], "every multipart upload was completed or aborted"


def test_should_list_folders_after_a_start(server):
    store = S3Store(server.bucket, S3Settings(**server.settings()))
    for step in (1, 2, 10):
        store.put_if_absent(f"runs/l/step-{step:020d}/a/rank-00000/m", b"x")
    assert list(store.list_prefixes("runs/l/step-")) == [f"runs/l/step-{s:020d}/" for s in (1, 2, 10)]
    from shardflow.checkpoints.layout import after_step

    assert list(store.list_prefixes("runs/l/step-", after_step("l", 2))) == [f"runs/l/step-{10:020d}/"]
    assert list(store.list_prefixes("runs/")) == ["runs/l/"]


def test_should_save_and_resume_through_the_server(server):
    torch = pytest.importorskip("torch")
    ckpt = Checkpoints(f"s3://{server.bucket}", s3=server.settings(), part_size=5 * MIB, parallelism=3)
    weights = torch.randn(4 * MIB)  # 16 MiB: four parts
    ckpt.save("through", 1, {"model": {"w": weights}, "rng": torch.get_rng_state()})
    restored = ckpt.resume("through")
    assert restored.step == 1 and torch.equal(restored.load("model")["w"], weights)
    assert restored.verify() == []


def test_should_read_and_write_the_manifest_both_languages_share():
    path = os.path.join(REPO, "docs", "training-checkpoint-manifest.json")
    with open(path, "rb") as f:
        stored = f.read()
    manifest = Manifest.decode(stored, "r7", 400)
    assert manifest.encode() == stored, "the Python encoder writes exactly the shared example"
    assert [(d.dataset, d.version, d.snapshot_id) for d in manifest.datasets] == [("cams", "v1", 4)]
    assert manifest.reader_state["consumed"] == 1536 and manifest.world_size == 2
