"""TensorFlow, JAX and Hugging Face adapters: the same samples as the per-sample reader for the same
(seed, epoch, snapshot), and an exact resume after a checkpoint (TF through tf.train.Checkpoint)."""

import numpy as np
import pytest
from conftest import epoch_ids

OPTIONS = dict(seed=11, shuffle_block=16)


def _ids(batch):
    return [x.decode() if isinstance(x, bytes) else str(x) for x in np.asarray(batch["sample_id"]).tolist()]


# ---- JAX ------------------------------------------------------------------------------------

def test_should_give_jax_arrays_split_over_the_devices_with_the_readers_samples(open_ds):
    import jax
    from shardflow.integrations.jax import JaxBatches

    ds = open_ds()
    assert len(jax.devices()) == 4
    got, reference = [], list(ds.batches(8, **OPTIONS))
    for batch, want in zip(JaxBatches(ds, 8, **OPTIONS), reference):
        got += list(batch["sample_id"])
        if len(want) % 4 == 0:
            assert len(batch["image"].sharding.device_set) == 4
            assert batch["image"].addressable_shards[1].data.shape == (2, 3, 4)
        np.testing.assert_array_equal(np.asarray(batch["image"]), want["image"])
        assert np.asarray(batch["mask"]).dtype == jax.numpy.bfloat16
        assert np.asarray(batch["mask"]).view(np.uint16).tobytes() == want["mask"].tobytes()
        assert batch["boxes"][0].shape == want["boxes"][0].shape
    assert got == epoch_ids(ds, **OPTIONS)


@pytest.mark.parametrize("resume_world", [1, 2])
def test_should_resume_jax_batches_exactly_after_a_saved_state(open_ds, resume_world):
    from shardflow.integrations.jax import JaxBatches

    ds = open_ds()
    whole = epoch_ids(ds, epoch=2, **OPTIONS)
    data = JaxBatches(ds, 8, **OPTIONS)
    data.set_epoch(2)
    it = iter(data)
    taken = [x for _ in range(5) for x in next(it)["sample_id"]]
    state = data.state_dict()
    assert taken == whole[:40] and state["consumed"] == 40
    rest = []
    for rank in range(resume_world):
        resumed = JaxBatches(open_ds(), 6, rank=rank, world_size=resume_world, **OPTIONS)
        resumed.load_state_dict(state)
        assert resumed.epoch == 2
        rest.append([x for b in resumed for x in b["sample_id"]])
    if resume_world == 1:
        assert rest[0] == whole[40:]
    else:  # rank r takes every other sample of the remainder from r (plus declared padding)
        assert rest[0] == whole[40::2] and rest[1][:30] == whole[41::2]  # 61 left: 31 each, one padding
        assert len(rest[1]) == 31 and rest[1][30] == whole[40]


# ---- TensorFlow -----------------------------------------------------------------------------

def test_should_resume_a_tf_dataset_exactly_through_tf_train_checkpoint(open_ds, tmp_path):
    import tensorflow as tf
    from shardflow.integrations.tensorflow import TFBatches

    ds = open_ds()
    whole = {e: epoch_ids(ds, epoch=e, **OPTIONS) for e in (0, 1)}
    data = TFBatches(ds, 8, **OPTIONS)
    step = tf.Variable(0, dtype=tf.int64)
    ckpt = tf.train.Checkpoint(step=step, data=data)
    seen = []
    for batch in data:  # epoch 0, interrupted after 4 batches
        seen += _ids(batch)
        step.assign_add(1)
        if step.numpy() == 4:
            path = ckpt.save(str(tmp_path / "ckpt"))
            break
    assert seen == whole[0][:32]
    for batch in data:  # the object read on past the checkpoint: what a restore must undo
        pass

    restored = TFBatches(open_ds(), 5, **OPTIONS)  # a new process, another batch size
    step2 = tf.Variable(0, dtype=tf.int64)
    tf.train.Checkpoint(step=step2, data=restored).restore(path).assert_consumed()
    assert step2.numpy() == 4 and restored.epoch == 0 and restored.state_dict()["consumed"] == 32
    after = {}
    for epoch in range(restored.epoch, 2):
        restored.set_epoch(epoch)
        after[epoch] = [x for b in restored for x in _ids(b)]
    assert after[0] == whole[0][32:]
    assert after[1] == whole[1]


def test_should_give_tf_tensors_of_the_specs_types(open_ds):
    import tensorflow as tf
    from shardflow.integrations.tensorflow import TFBatches

    ds = open_ds()
    reference = list(ds.batches(8, **OPTIONS))
    for batch, want in zip(TFBatches(ds, 8, **OPTIONS), reference):
        assert batch["image"].dtype == tf.float32 and batch["mask"].dtype == tf.bfloat16
        np.testing.assert_array_equal(batch["image"].numpy(), want["image"])
        assert tf.bitcast(batch["mask"], tf.uint16).numpy().tobytes() == want["mask"].tobytes()
        assert [c.decode() for c in batch["caption"].numpy().tolist()] == want["caption"].tolist()
        assert isinstance(batch["boxes"], tf.RaggedTensor)
        for k in range(len(want)):
            shape = tuple(batch["boxes_shape"][k].numpy())
            assert np.array_equal(batch["boxes"][k].numpy().reshape(shape), want["boxes"][k])


# ---- Hugging Face ---------------------------------------------------------------------------

@pytest.mark.parametrize("taken", [0, 1, 37, 100])
def test_should_resume_a_hf_iterable_dataset_exactly_after_its_state_dict(open_ds, taken):
    from shardflow.integrations.huggingface import hf_iterable_dataset

    ds = open_ds()
    whole = epoch_ids(ds, epoch=1, **OPTIONS)
    data = hf_iterable_dataset(ds, **OPTIONS)
    data.set_epoch(1)
    it = iter(data)
    first = [next(it)["sample_id"] for _ in range(taken)]
    state = data.state_dict()
    assert first == whole[:taken]
    saved = state["examples_iterable"]["read_state"]
    assert (saved is None and taken == 0) or saved["consumed"] == taken  # None: not started, from the start

    resumed = hf_iterable_dataset(open_ds(), **OPTIONS)
    resumed.set_epoch(1)
    resumed.load_state_dict(state)
    assert [e["sample_id"] for e in resumed] == whole[taken:]


def test_should_give_hf_examples_with_the_readers_values(open_ds):
    from shardflow.integrations.huggingface import hf_iterable_dataset

    ds = open_ds()
    samples = list(ds.samples(epoch=0, **OPTIONS))
    examples = list(hf_iterable_dataset(ds, **OPTIONS))
    assert [e["sample_id"] for e in examples] == [s["sample_id"] for s in samples]
    for e, s in zip(examples, samples):
        assert e["caption"] == s["caption"] and np.array_equal(e["boxes"], s["boxes"])
        assert np.asarray(e["image"]).tobytes() == s["image"].tobytes()


# ---- every framework, one order ---------------------------------------------------------------

@pytest.mark.parametrize("world_size", [1, 3])
def test_should_give_the_same_samples_whichever_framework_reads_them(open_ds, world_size):
    from shardflow.integrations.huggingface import hf_iterable_dataset
    from shardflow.integrations.jax import JaxBatches
    from shardflow.integrations.tensorflow import TFBatches

    for rank in range(world_size):
        options = dict(OPTIONS, epoch=3, drop_last=False)
        want = epoch_ids(open_ds(), rank=rank, world_size=world_size, **options)
        core = [x for b in open_ds().batches(7, rank=rank, world_size=world_size, **options) for x in b["sample_id"]]
        options.pop("epoch")
        tf_data = TFBatches(open_ds(), 7, rank=rank, world_size=world_size, **options)
        tf_data.set_epoch(3)
        jax_data = JaxBatches(open_ds(), 7, rank=rank, world_size=world_size, as_jax=False, **options)
        jax_data.set_epoch(3)
        hf = hf_iterable_dataset(open_ds(), rank=rank, world_size=world_size, epoch=3, **options)
        assert core == want
        assert [x for b in tf_data for x in _ids(b)] == want
        assert [x for b in jax_data for x in b["sample_id"]] == want
        assert [e["sample_id"] for e in hf] == want
