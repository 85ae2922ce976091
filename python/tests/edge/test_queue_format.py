"""The queue's record format and recovery, for every shape Hypothesis finds: what was appended reads
back in order after a reopen; a torn or corrupt tail is cut, never read and never a stuck queue; a
bad spot in a sealed segment costs that segment's rest, counted; seqs never repeat."""

import os
import uuid

from hypothesis import HealthCheck, given, settings, strategies as st

from shardflow.edge import segment as seg
from shardflow.edge.queue import DurableQueue, QueueSettings
from shardflow.edge.reader import QueueReader

SMALL = QueueSettings(max_bytes=1 << 20, segment_bytes=8 << 10)
payloads = st.lists(st.tuples(st.binary(min_size=1, max_size=40), st.binary(max_size=3000)), min_size=1, max_size=40)
fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def read_all(q, ack=False):
    reader = QueueReader(q, q.done_seq() + 1)
    out = []
    while True:
        frame = reader.next(0)
        if frame is None:
            reader.close()
            return out
        out.append((frame.seq,) + seg.split_payload(frame.payload))
        if ack:
            q.ack(frame.seq)


def fresh_dir(tmp_path):
    return str(tmp_path / uuid.uuid4().hex)


@fast
@given(entries=payloads)
def test_should_read_back_every_entry_in_order_after_a_reopen(tmp_path, entries):
    d = fresh_dir(tmp_path)
    q = DurableQueue(d, SMALL)
    seqs = [q.append(k, v) for k, v in entries]
    q.close()
    q = DurableQueue(d, SMALL)
    assert seqs == list(range(1, len(entries) + 1))
    assert read_all(q) == [(s, k, v) for s, (k, v) in zip(seqs, entries)]
    assert q.pending() == len(entries)
    q.close()


@fast
@given(entries=payloads, cut=st.floats(0, 1), garbage=st.binary(max_size=64))
def test_should_cut_a_torn_tail_and_go_on_after_the_last_whole_entry(tmp_path, entries, cut, garbage):
    d = fresh_dir(tmp_path)
    q = DurableQueue(d, SMALL)
    for k, v in entries:
        q.append(k, v)
    newest = q.segments()[-1]
    q.close()
    # a crash mid-write: the newest segment ends anywhere inside its last frames, maybe with junk after
    size = os.path.getsize(newest.path)
    keep = seg.HEADER_BYTES + int((size - seg.HEADER_BYTES) * cut)
    with open(newest.path, "r+b") as f:
        f.truncate(keep)
        f.seek(keep)
        f.write(garbage)
    whole = []
    with open(newest.path, "rb") as f:
        for frame in seg.scan(f, newest.first_seq):
            if frame.offset + frame.size <= keep:
                whole.append(frame.seq)
    q = DurableQueue(d, SMALL)
    read = read_all(q)
    # every entry wholly before the cut survives; one after it only if the junk happened to rebuild
    # it byte for byte (its CRC then holds); never anything that was not appended
    kept = len(read)
    at_least = whole[-1] if whole else newest.first_seq - 1
    assert kept >= at_least
    assert read == [(s, k, v) for s, (k, v) in zip(range(1, kept + 1), entries)]
    assert q.append(b"after", b"crash") == kept + 1
    assert read_all(q)[-1] == (kept + 1, b"after", b"crash")
    q.close()


@fast
@given(entries=payloads, where=st.floats(0, 1), bit=st.integers(0, 7))
def test_should_skip_a_corrupt_sealed_segment_rest_and_never_stall(tmp_path, entries, where, bit):
    d = fresh_dir(tmp_path)
    q = DurableQueue(d, SMALL)
    for k, v in entries + [(b"tail", b"x" * 9000)]:  # the last one forces a roll: the others are sealed
        q.append(k, v)
    sealed = q.segments()[0]
    q.close()
    with open(sealed.path, "r+b") as f:
        at = seg.HEADER_BYTES + int((sealed.size - seg.HEADER_BYTES - 1) * where)
        f.seek(at)
        byte = f.read(1)
        f.seek(at)
        f.write(bytes([byte[0] ^ (1 << bit)]))
    q = DurableQueue(d, SMALL)
    read = read_all(q, ack=True)
    total = len(entries) + 1
    assert read[-1][1] == b"tail", "entries after the bad segment are still sent"
    assert len(read) + q.corrupt == total
    assert q.corrupt >= 1
    assert q.pending() == 0
    q.close()


@fast
@given(ops=st.lists(st.sampled_from(["append", "append_many", "ack", "reopen"]), min_size=1, max_size=60),
       data=st.data())
def test_should_keep_pending_entries_and_never_reuse_a_seq_across_acks_and_reopens(tmp_path, ops, data):
    d = fresh_dir(tmp_path)
    q = DurableQueue(d, SMALL)
    appended, acked, used = [], set(), set()
    for op in ops:
        if op == "append":
            appended.append(q.append(b"k", data.draw(st.binary(max_size=2500))))
        elif op == "append_many":
            appended += q.append_many([(b"m", b"v" * data.draw(st.integers(0, 3000))) for _ in range(3)])
        elif op == "ack" and appended:
            seq = data.draw(st.sampled_from(appended))
            q.ack(seq)
            acked.add(seq)
        elif op == "reopen":
            q.close()
            q = DurableQueue(d, SMALL)
        assert not (set(appended) & used - set(appended)), "a seq was handed out twice"
    assert len(set(appended)) == len(appended)
    done = q.done_seq()
    assert all(s in acked for s in appended if s <= done), "done only moves over acknowledged entries"
    assert [s for s, _, _ in read_all(q)] == [s for s in appended if s > done]
    # every entry done and the queue reopened: the next seq still comes after all of them
    for s in appended:
        q.ack(s)
    q.close()
    q = DurableQueue(d, SMALL)
    assert q.append(b"k", b"v") == (max(appended) + 1 if appended else 1)
    q.close()


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=70000), start=st.integers(0, 2**32 - 1))
def test_the_queues_crc32_should_be_zlibs_for_every_input(data, start):
    # zlib-ng's when installed: it must give the very values the Java SDK (java.util.zip.CRC32) writes
    import zlib

    from shardflow.edge.crc import crc32
    assert crc32(data, start) == zlib.crc32(data, start)
    assert crc32(memoryview(data)[1:]) == zlib.crc32(data[1:])
