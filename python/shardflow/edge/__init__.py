"""The edge producer SDK: durable offline queue, exactly-once into the dataset (README, Producing).

Needs the ``edge`` extra (``pip install 'shardflow[edge]'``: confluent-kafka, fastavro); a trainer
that only reads datasets never imports this package.
"""

from shardflow.edge.errors import (DeliveryStopped, EdgeError, ProducerClosed, QueueFull, QueueLocked, QueueWriteError,
                                   RegistryModeMismatch, SampleRejected, SampleTooLarge)
from shardflow.edge.producer import EdgeProducer, EdgeStats
from shardflow.edge.queue import QueueSettings
from shardflow.edge.spec_check import Limits

__all__ = ["DeliveryStopped", "EdgeError", "EdgeProducer", "EdgeStats", "Limits", "ProducerClosed", "QueueFull",
           "QueueLocked", "QueueSettings", "QueueWriteError", "RegistryModeMismatch", "SampleRejected", "SampleTooLarge"]
