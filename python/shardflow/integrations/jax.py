"""JAX: :class:`JaxBatches`, one process's batches of each epoch as ``jax.Array`` s, with the
reading rules' resume state (docs/READING-RULES.md). Importing this module imports jax
(``pip install 'shardflow[jax]'``).

Each process reads its own share (rank ``jax.process_index()`` of ``jax.process_count()``, as any
other framework's rank would): its local batch of ``batch_size`` samples becomes its part of a
global array of ``process_count * batch_size`` rows, split over the devices by ``sharding``
(default: every device along one ``"data"`` axis), with
``jax.make_array_from_process_local_data``. ``as_jax=False`` gives the numpy batches as they are
(a plain numpy iterator with the same state API).
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Mapping, Optional

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from shardflow.format.gather import Ragged
from shardflow.reading.batch import Batch
from shardflow.reading.batchiter import BatchReader

__all__ = ["JaxBatches", "data_sharding"]


def data_sharding(devices=None, axis: str = "data") -> NamedSharding:
    """Rows split over ``devices`` (default: all of them, every process's) along one mesh axis."""
    devices = np.array(jax.devices() if devices is None else devices)
    return NamedSharding(Mesh(devices, (axis,)), PartitionSpec(axis))


class JaxBatches:
    """``for batch in JaxBatches(ds, 64, seed=0): train_step(batch["image"], batch["label"])``.

    A batch is a dict: fixed tensors as ``jax.Array`` (bfloat16 as ``jnp.bfloat16``), string,
    bytes and free-shape tensors as :class:`~shardflow.format.gather.Ragged` (numpy), ``sample_id``
    and ``device_id`` numpy arrays of ``str``, ``produced_at`` a ``jax.Array`` of int64 (int32 unless
    ``jax_enable_x64``). A batch whose rows do not divide over this process's devices (an epoch's
    short last one) is placed whole on the first local device. ``options`` are those of
    :meth:`shardflow.Dataset.batches` (``seed``, ``shuffle_block``, ``drop_last``, ``prefetch`` ...).
    """

    def __init__(self, read: Any, batch_size: int, *, rank: Optional[int] = None, world_size: Optional[int] = None,
                 sharding: Optional[jax.sharding.Sharding] = None, as_jax: bool = True, **options):
        rank = jax.process_index() if rank is None else rank
        world_size = jax.process_count() if world_size is None else world_size
        self.reader = BatchReader(read, batch_size, rank=rank, world_size=world_size, **options)
        self.as_jax = as_jax
        self._sharding = sharding

    @property
    def epoch(self) -> int:
        return self.reader.epoch

    def set_epoch(self, epoch: int) -> None:
        self.reader.set_epoch(epoch)

    @property
    def sharding(self) -> jax.sharding.Sharding:
        if self._sharding is None:
            self._sharding = data_sharding()
        return self._sharding

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        for batch in self.reader.batches():
            yield self.convert(batch) if self.as_jax else batch

    def convert(self, batch: Batch) -> Dict[str, Any]:
        local_devices = len(self.sharding.addressable_devices)
        out: Dict[str, Any] = {}
        for name, value in batch.items():
            if isinstance(value, (Ragged, list)) or value.dtype.kind == "U":
                out[name] = value
                continue
            spec = next((t for t in self.reader.reader.mix.datasets[0].spec.tensors if t.name == name), None)
            if spec is not None and spec.dtype == "bfloat16":
                value = value.view(jax.numpy.bfloat16)
            if len(value) % local_devices == 0:
                out[name] = jax.make_array_from_process_local_data(self.sharding, value)
            else:
                out[name] = jax.device_put(value, jax.local_devices()[0])
        return out

    def state_dict(self) -> Dict[str, Any]:
        """Where the job is (every process in step has the same): resumes on any process count."""
        return self.reader.state_dict()

    def load_state_dict(self, state: Mapping[str, Any], allow_snapshot_change: bool = False) -> None:
        self.reader.load_state_dict(state, allow_snapshot_change)
