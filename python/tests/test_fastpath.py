"""The fast path (Dataset.batches / Mix.batches) against the per-sample path: the same samples in
the same order, byte for byte, for every dtype, fixed and ragged shapes, strings, bytes and images,
contiguous and chunked/compressed shards (the two shard writers' layouts), any split and batch."""

import io
import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shardflow import Dataset, DatasetSpec, DirectoryStore, Mix, TensorSpec
from shardflow.reading.batch import Batch
from shardflow.tools.testing import DatasetWriter

FIXED_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16",
                "float32", "float64", "bfloat16"]


def _png(rng) -> bytes:
    try:
        from PIL import Image
    except ImportError:  # bytes that merely claim to be an image: the reader never decodes them
        return b"\x89PNG" + rng.bytes(int(rng.integers(0, 40)))
    out = io.BytesIO()
    Image.fromarray(rng.integers(0, 255, (int(rng.integers(1, 5)), 3, 3), dtype=np.uint8)).save(out, "PNG")
    return out.getvalue()


@st.composite
def tensor_specs(draw):
    kinds = draw(st.lists(st.sampled_from(["fixed", "fixed", "string", "bytes", "image", "free"]), min_size=1,
                          max_size=4))
    tensors = []
    for i, kind in enumerate(kinds):
        name = f"t{i}"
        if kind == "fixed":
            shape = tuple(draw(st.lists(st.integers(1, 4), max_size=2)))
            tensors.append(TensorSpec(name, draw(st.sampled_from(FIXED_DTYPES)), shape))
        elif kind in ("string", "bytes"):
            tensors.append(TensorSpec(name, kind, ()))
        elif kind == "image":
            tensors.append(TensorSpec(name, "bytes", (), encoding="image/png"))
        else:
            dtype = draw(st.sampled_from(["float32", "int16", "uint8", "float64"]))
            tensors.append(TensorSpec(name, dtype, (None, draw(st.integers(1, 3)))))
    return tensors


def _value(t: TensorSpec, rng):
    if t.encoding:
        return _png(rng)
    if t.dtype == "string":
        return "".join(rng.choice(list("abcé漢 \x00z"), int(rng.integers(0, 6))))
    if t.dtype == "bytes":
        return rng.bytes(int(rng.integers(0, 9)))
    shape = tuple(int(rng.integers(0, 4)) if d is None else d for d in t.shape)
    if t.dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    raw = rng.bytes(int(np.prod(shape)) * t.numpy_dtype.itemsize)  # any bit pattern (NaNs included)
    return np.frombuffer(raw, dtype=t.numpy_dtype).reshape(shape)


def _write(root, name, tensors, compression, chunk_rows, sizes, rng) -> DirectoryStore:
    store = DirectoryStore(root)
    spec = DatasetSpec(name, "v1", tuple(tensors), None, "tests", "fast path", compression=compression)
    writer = DatasetWriter(store, spec, chunk_rows=chunk_rows)
    writer.create()
    n = 0
    for lane, size in enumerate(sizes):
        rows = []
        for _ in range(size):
            rows.append(dict({t.name: _value(t, rng) for t in tensors}, sample_id=f"{name}-{n:05d}-ü",
                             device_id=f"dev-{n % 3}", produced_at=int(rng.integers(0, 2**62)),
                             attributes={"n": str(n)}))
            n += 1
        writer.add([(lane % 3, lane, rows)])
    return store


def _same(batch_sample, sample):
    assert list(batch_sample) == list(sample)
    for key, want in sample.items():
        got = batch_sample[key]
        if isinstance(want, np.ndarray):
            assert isinstance(got, np.ndarray) and got.dtype == want.dtype and got.shape == want.shape, key
            assert got.tobytes() == want.tobytes(), key
        else:
            assert type(got) is type(want) and got == want, (key, got, want)


def _check_batches(batches, samples, batch_size):
    flat = []
    for j, batch in enumerate(batches):
        assert isinstance(batch, Batch) and batch.index == j
        for name, value in batch.items():
            if isinstance(value, np.ndarray):
                assert value.flags.c_contiguous and len(value) == len(batch), name
        flat += [batch.sample(k) for k in range(len(batch))]
        assert len(batch) == batch_size or j == -(-len(samples) // batch_size) - 1
    assert len(flat) == len(samples)
    for got, want in zip(flat, samples):
        _same(got, want)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tensors=tensor_specs(), compression=st.sampled_from(["none", "gzip:4", "lzf"]),
       chunk_rows=st.sampled_from([None, None, 1, 3, 8]), sizes=st.lists(st.integers(1, 13), min_size=1, max_size=5),
       seed=st.integers(0, 2**63 - 1), epoch=st.integers(0, 3), block=st.sampled_from([0, 1, 4, 64, 8192]),
       world=st.integers(1, 3), batch_size=st.integers(1, 9), drop_last=st.booleans(), threads=st.integers(0, 3),
       attributes=st.booleans(), data=st.data())
def test_should_give_the_per_sample_paths_samples_byte_for_byte(tensors, compression, chunk_rows, sizes, seed, epoch,
                                                                 block, world, batch_size, drop_last, threads,
                                                                 attributes, data):
    rank = data.draw(st.integers(0, world - 1))
    rng = np.random.default_rng(seed % 1000)
    with tempfile.TemporaryDirectory() as root:
        store = _write(os.path.join(root, "bucket"), "fast", tensors, compression, chunk_rows, sizes, rng)
        ds = Dataset("s3://tests", "fast", "v1", s3=store, cache_dir=os.path.join(root, "cache"))
        options = dict(seed=seed, epoch=epoch, shuffle_block=block, rank=rank, world_size=world, drop_last=drop_last,
                       attributes=attributes)
        samples = list(ds.samples(**options))
        _check_batches(ds.batches(batch_size, threads=threads, **options), samples, batch_size)
        # no cache: the same bytes downloaded into memory
        uncached = Dataset("s3://tests", "fast", "v1", s3=store, cache_dir=False)
        _check_batches(uncached.batches(batch_size, threads=threads, **options), samples, batch_size)


@settings(max_examples=15, deadline=None)
@given(sizes_a=st.lists(st.integers(1, 9), min_size=1, max_size=3),
       sizes_b=st.lists(st.integers(1, 9), min_size=1, max_size=3), counts=st.tuples(st.integers(0, 30),
                                                                                  st.integers(1, 30)),
       seed=st.integers(0, 1000), batch_size=st.integers(1, 8), world=st.integers(1, 3))
def test_should_mix_batches_as_the_per_sample_path_does(sizes_a, sizes_b, counts, seed, batch_size, world):
    tensors = [TensorSpec("x", "float32", (2,)), TensorSpec("caption", "string", ())]
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory() as root:
        a = _write(os.path.join(root, "a"), "mixa", tensors, "none", None, sizes_a, rng)
        b = _write(os.path.join(root, "b"), "mixb", tensors, "gzip:4", 2, sizes_b, rng)
        cache = os.path.join(root, "cache")
        mix = Mix([Dataset("s3://a", "mixa", "v1", s3=a, cache_dir=cache),
                   Dataset("s3://b", "mixb", "v1", s3=b, cache_dir=cache)], counts=list(counts))
        for rank in range(world):
            samples = list(mix.samples(seed=seed, epoch=1, shuffle_block=5, rank=rank, world_size=world))
            _check_batches(mix.batches(batch_size, seed=seed, epoch=1, shuffle_block=5, rank=rank, world_size=world),
                           samples, batch_size)


def test_should_resume_batches_from_a_state_on_another_world_size(built):
    from conftest import open_dataset

    ds = open_dataset(built)
    whole = [s["sample_id"] for s in ds.samples(seed=5, shuffle_block=16)]
    it = ds.batches(8, seed=5, shuffle_block=16, rank=0, world_size=2)
    first = [next(it) for _ in range(3)]
    state = it.state_dict()
    assert state["consumed"] == 2 * 3 * 8
    rest = []
    for rank in range(3):  # the job resumed on 3 ranks, batch size 5
        for batch in ds.batches(5, seed=5, shuffle_block=16, rank=rank, world_size=3, resume=state):
            rest += list(batch["sample_id"])
    left = len(whole) - 48
    assert set(rest) == set(whole[48:]) and len(rest) == 3 * -(-left // 3)  # the rest, plus declared padding
    assert [str(x) for b in first for x in b["sample_id"]] == whole[0:48:2][:24]


def test_should_refuse_a_bad_batch_size(built):
    from conftest import open_dataset

    ds = open_dataset(built)
    for bad in (0, -1, 2.5, True):
        try:
            ds.batches(bad)
        except ValueError as e:
            assert "batch_size" in str(e)
        else:
            raise AssertionError(f"batch_size={bad!r} was accepted")
