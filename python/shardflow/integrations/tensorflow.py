"""TensorFlow: :class:`TFBatches`, one rank's batches of each epoch as a ``tf.data.Dataset``, whose
position is saved and restored by ``tf.train.Checkpoint``. Importing this module imports
tensorflow (``pip install 'shardflow[tf]'``).

``tf.data.Dataset.from_generator`` alone cannot be checkpointed: its iterator's position lives in
Python. Here the position is the reading rules' resume state (docs/READING-RULES.md: one consumed
count, a few hundred bytes of JSON) kept in a ``tf.Variable`` (``read_state``) that is updated as
each batch reaches the training loop, not as tf.data reads ahead; a checkpoint saves it with the
model, and iterating after a restore goes on exactly after the last batch the loop took, on any
number of workers and with any batch size.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Mapping, Optional

import numpy as np
import tensorflow as tf

from shardflow.format.gather import Ragged
from shardflow.reading.batch import Batch
from shardflow.reading.batchiter import BatchReader
from shardflow.reading.fastpath import common_spec
from shardflow.reading.plan import as_mix

__all__ = ["TFBatches"]

_TF_DTYPES = {"bool": tf.bool, "uint8": tf.uint8, "int8": tf.int8, "int16": tf.int16, "int32": tf.int32,
              "int64": tf.int64, "uint16": tf.uint16, "uint32": tf.uint32, "uint64": tf.uint64,
              "float16": tf.float16, "float32": tf.float32, "float64": tf.float64, "bfloat16": tf.bfloat16}


class TFBatches(tf.Module):
    """``data = TFBatches(ds, 64, seed=0)``; ``ckpt = tf.train.Checkpoint(model=model, data=data)``;
    ``for epoch in range(data.epoch, n): data.set_epoch(epoch); for batch in data: ...``.

    A batch is a dict of tensors: each fixed tensor ``(B, *shape)`` of its dtype (bfloat16 as
    ``tf.bfloat16``), ``string`` and ``bytes`` tensors ``tf.string`` of shape ``(B,)``, free-shape
    tensors a ``tf.RaggedTensor`` of each sample's values flattened, with their shapes under
    ``<name>_shape`` (int64 ``(B, rank)``), ``sample_id`` and ``device_id`` ``tf.string``,
    ``produced_at`` int64. ``options`` are those of :meth:`shardflow.Dataset.batches`.

    Iterate the object itself (its position is counted as the loop takes batches); :meth:`dataset`
    gives the ``tf.data.Dataset`` for pipelines of your own, whose position is then yours to keep.
    """

    def __init__(self, read: Any, batch_size: int, *, rank: int = 0, world_size: int = 1, prefetch_batches: int = 2,
                 **options):
        super().__init__(name="shardflow_batches")
        if options.get("attributes"):
            raise ValueError("attributes=True is not supported by TFBatches (per-sample dicts have no tensor form)")
        self._reader = BatchReader(read, batch_size, rank=rank, world_size=world_size, **options)
        self._spec = common_spec(as_mix(read).datasets)
        self._prefetch = prefetch_batches
        self.read_state = tf.Variable("", dtype=tf.string, trainable=False, name="read_state")
        self._loaded = b""

    @property
    def epoch(self) -> int:
        self._sync()
        return self._reader.epoch

    def set_epoch(self, epoch: int) -> None:
        self._sync()
        self._reader.set_epoch(epoch)

    def _sync(self) -> None:
        """Takes in a state restored into ``read_state`` by a checkpoint since this object last saw it."""
        value = self.read_state.numpy()
        if value and value != self._loaded:
            self._reader.load_state_dict(json.loads(value.decode("utf-8")))
            self._loaded = value

    def output_signature(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for t in self._spec.tensors:
            if t.dtype in ("string", "bytes"):
                out[t.name] = tf.TensorSpec((None,), tf.string)
            elif t.variable:
                out[t.name] = tf.RaggedTensorSpec((None, None), _TF_DTYPES[t.dtype], ragged_rank=1,
                                                  row_splits_dtype=tf.int64)
                out[t.name + "_shape"] = tf.TensorSpec((None, len(t.shape)), tf.int64)
            else:
                out[t.name] = tf.TensorSpec((None,) + tuple(t.shape), _TF_DTYPES[t.dtype])
        out["sample_id"] = tf.TensorSpec((None,), tf.string)
        out["device_id"] = tf.TensorSpec((None,), tf.string)
        out["produced_at"] = tf.TensorSpec((None,), tf.int64)
        return out

    def _to_tf(self, batch: Batch) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for t in self._spec.tensors:
            value = batch[t.name]
            if isinstance(value, Ragged) and t.dtype in ("string", "bytes"):
                out[t.name] = np.array([value.values[a:b].tobytes() for a, b in zip(value.offsets[:-1],
                                                                                    value.offsets[1:])], dtype=object)
            elif isinstance(value, Ragged):
                out[t.name] = tf.RaggedTensor.from_row_splits(value.values, value.offsets, validate=False)
                out[t.name + "_shape"] = value.shapes
            elif t.dtype == "bfloat16":
                out[t.name] = tf.bitcast(tf.constant(value.view(np.int16)), tf.bfloat16)
            else:
                out[t.name] = value
        out["sample_id"] = np.char.encode(batch["sample_id"], "utf-8").astype(object)
        out["device_id"] = np.char.encode(batch["device_id"], "utf-8").astype(object)
        out["produced_at"] = batch["produced_at"]
        return out

    def dataset(self) -> tf.data.Dataset:
        """The current epoch's rest as a ``tf.data.Dataset`` (read once per iteration of it)."""
        self._sync()
        return tf.data.Dataset.from_generator(
            lambda: (self._to_tf(b) for b in self._reader.batches(count=False)),
            output_signature=self.output_signature())

    def __iter__(self) -> Iterator[Dict[str, tf.Tensor]]:
        delivered = 0
        for batch in self.dataset().prefetch(self._prefetch):
            delivered += 1
            self._reader.delivered(delivered)
            self._loaded = json.dumps(self._reader.state_dict()).encode("utf-8")
            self.read_state.assign(self._loaded)
            yield batch

    def state_dict(self) -> Dict[str, Any]:
        """The reading rules' state (the same JSON ``read_state`` holds), for other frameworks' checkpoints."""
        self._sync()
        return self._reader.state_dict()

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        self._reader.load_state_dict(state, allow_snapshot_change)
        self._loaded = json.dumps(dict(state)).encode("utf-8")
        self.read_state.assign(self._loaded)
