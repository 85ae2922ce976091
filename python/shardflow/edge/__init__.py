"""The edge producer SDK: durable offline queue, exactly-once into the dataset (docs/ARCHITECTURE.md § 1;
the guide: docs/producing/python.md).

Needs the ``edge`` extra (``pip install 'shardflow[edge]'``: confluent-kafka, fastavro); a trainer
that only reads datasets never imports this package.
"""

from shardflow.edge.errors import (DeliveryStopped, EdgeError, ProducerClosed, QueueFull, QueueLocked, QueueWriteError,
                                   RegistryAccessDenied, RegistryModeMismatch, SampleRejected, SampleTooLarge)
from shardflow.edge.producer import EdgeProducer, EdgeStats
from shardflow.edge.registry_auth import OAuth2ClientCredentials, load_registry_config
from shardflow.edge.queue import QueueSettings
from shardflow.edge.spec_check import Limits

__all__ = ["DeliveryStopped", "EdgeError", "EdgeProducer", "EdgeStats", "Limits", "ProducerClosed", "QueueFull",
           "OAuth2ClientCredentials", "QueueLocked", "QueueSettings", "QueueWriteError", "RegistryAccessDenied",
           "RegistryModeMismatch", "SampleRejected", "SampleTooLarge", "load_registry_config"]
