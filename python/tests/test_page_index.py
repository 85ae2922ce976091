"""Page indexes (FORMAT.md, "Page index"): the page hash rule, the object's exact bytes, the shared
vectors (docs/page-index-vectors.json, also checked by the Java PageIndexTest), and the checks a
reader makes before trusting one."""

import hashlib
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shardflow.errors import FormatError
from shardflow.format.entries import ShardEntry, entry_to_json, parse_commit_entry
from shardflow.format.pages import (PageIndexMismatch, build_page_index, encode_page_index, page_index_key,
                                    parse_page_index)
from shardflow.reading.log import CommitEntry

VECTORS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "page-index-vectors.json")


def entry_for(data: bytes, index_bytes: bytes) -> ShardEntry:
    return ShardEntry("d/v1/lane-00000/shard-000000000001", "datasets/d/v1/shards/lane-00000/shard-000000000001.h5",
                      0, 1, 1, len(data), hashlib.sha256(data).hexdigest(), "f" * 64, 0, 0, 1,
                      hashlib.sha256(index_bytes).hexdigest())


def test_should_match_the_shared_vectors_byte_for_byte():
    with open(VECTORS) as f:
        cases = json.load(f)["cases"]
    assert len(cases) >= 4
    for case in cases:
        data = bytes(i % 251 for i in range(case["bytes"]))
        index = build_page_index(data, case["pageSize"])
        assert index.shard_sha256 == case["sha256"] and list(index.pages) == case["pages"]
        encoded = encode_page_index(index)
        assert encoded.decode("utf-8") == case["index"]
        assert hashlib.sha256(encoded).hexdigest() == case["indexSha256"]


@settings(max_examples=100, deadline=None)
@given(data=st.binary(min_size=1, max_size=30_000), log2=st.integers(12, 14))
def test_should_hash_every_page_and_read_back_what_it_wrote(data, log2):
    size = 1 << log2
    index = build_page_index(data, size)
    assert index.page_count == -(-len(data) // size)
    for page, digest in enumerate(index.pages):
        start, length = index.page_span(page)
        assert digest == hashlib.sha256(data[start:start + length]).hexdigest()
    encoded = encode_page_index(index)
    assert parse_page_index(encoded, entry_for(data, encoded), "k") == index


def test_should_trust_an_index_only_when_the_log_vouches_for_it():
    data = bytes(range(256)) * 40
    index = build_page_index(data, 4096)
    encoded = encode_page_index(index)
    entry = entry_for(data, encoded)
    with pytest.raises(PageIndexMismatch, match="commit log says"):
        parse_page_index(encoded.replace(b'"pageSize":4096', b'"pageSize":8192'), entry, "k")

    def vouched(doc):
        raw = json.dumps(doc, separators=(",", ":")).encode()
        return raw, entry_for(data, raw)

    newer, e = vouched({**json.loads(encoded), "formatVersion": 2})
    with pytest.raises(FormatError, match="formatVersion 2.*upgrade"):
        parse_page_index(newer, e, "k")
    short, e = vouched({**json.loads(encoded), "pages": index.pages[:-1]})
    with pytest.raises(FormatError, match="lists 2 page hashes"):
        parse_page_index(short, e, "k")
    other, _ = vouched({**json.loads(encoded), "sha256": "0" * 64})
    with pytest.raises(FormatError, match="describes a shard"):
        parse_page_index(other, entry_for(data, other), "k")


def test_should_name_the_index_in_the_entry_only_when_there_is_one():
    plain = entry_for(b"x", b"y")
    plain = ShardEntry(*[getattr(plain, f) for f in plain.__dataclass_fields__][:-1])
    indexed = entry_for(b"x", b"y")
    raw = entry_to_json(CommitEntry(1, "t", "2026-01-01T00:00:00Z", (plain, indexed)))
    assert ["pageIndexSha256" in s for s in raw["addedShards"]] == [False, True]
    parsed = parse_commit_entry(json.dumps(raw).encode(), "log/1")
    assert parsed.added_shards == (plain, indexed)
    raw["addedShards"][1]["pageIndexSha256"] = "XYZ"
    with pytest.raises(FormatError, match="pageIndexSha256"):
        parse_commit_entry(json.dumps(raw).encode(), "log/1")
    assert page_index_key(plain.object_key).endswith(".h5.pages.json")
