"""Reading a GetObject body straight into the shard's buffer, over a real HTTP connection (a local
server; urllib3 and botocore's body as boto3 hands them out)."""

import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

urllib3 = pytest.importorskip("urllib3")
botocore_response = pytest.importorskip("botocore.response")

from shardflow.storage.s3 import _read_body  # noqa: E402

BODY = os.urandom(3 << 20)


class _Objects(BaseHTTPRequestHandler):
    """Serves BODY, honouring ``Range`` unless the path is ``/ignores-range``; keeps connections open."""

    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 - http.server's name
        data = BODY
        ranged = self.headers.get("Range") and self.path != "/ignores-range"
        if ranged:
            start, end = (int(x) for x in self.headers["Range"].removeprefix("bytes=").split("-"))
            data = BODY[start:end + 1]
        self.send_response(206 if ranged else 200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def pool():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Objects)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with urllib3.HTTPConnectionPool("127.0.0.1", server.server_address[1], maxsize=1) as p:
        yield p
    server.shutdown()
    server.server_close()


def _get(pool, path, start, length, encoding=None):
    raw = pool.request("GET", path, headers={"Range": f"bytes={start}-{start + length - 1}"}, preload_content=False,
                       decode_content=False)
    response = {"Body": botocore_response.StreamingBody(raw, raw.headers["Content-Length"])}
    if encoding:
        response["ContentEncoding"] = encoding
    return response


def test_should_read_a_range_into_its_place_and_reuse_the_connection(pool):
    out = bytearray(len(BODY))
    half = len(BODY) // 2
    assert _read_body(_get(pool, "/obj", 0, half), memoryview(out)[:half]) == half
    assert _read_body(_get(pool, "/obj", half, len(BODY) - half), memoryview(out)[half:]) == len(BODY) - half
    assert out == BODY
    assert pool.num_connections == 1  # the first GET's connection went back to the pool


def test_should_fill_only_the_buffer_and_drop_the_connection_when_the_server_ignores_the_range(pool):
    out = bytearray(1000)
    assert _read_body(_get(pool, "/ignores-range", 0, len(out)), memoryview(out)) == len(out)
    assert out == BODY[:1000]
    # The rest of that body was never read: its connection must not serve another request.
    again = bytearray(1000)
    assert _read_body(_get(pool, "/obj", 5000, len(again)), memoryview(again)) == len(again)
    assert again == BODY[5000:6000]
    assert pool.num_connections == 2


def test_should_read_an_encoded_body_chunk_by_chunk_with_the_same_bytes(pool):
    out = bytearray(4096)
    assert _read_body(_get(pool, "/obj", 100, len(out), encoding="identity"), memoryview(out)) == len(out)
    assert out == BODY[100:4196]


def test_should_report_fewer_bytes_when_the_object_is_shorter_than_asked(pool):
    out = bytearray(len(BODY) + 10)
    assert _read_body(_get(pool, "/obj", 0, len(BODY)), memoryview(out)) == len(BODY)
    assert out[:len(BODY)] == BODY
