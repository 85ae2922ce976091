"""Publishes samples with the Python edge SDK to a secure stack, as its edge principal: Kafka over
SASL_SSL (SCRAM-SHA-512, the stack's CA) and the registry over https with OAuth2 client credentials,
read-only (it finds the schema the stack's admin registered). Run by integration-tests'
SecureStackTest, which checks the samples reach the shards exactly once; prints one JSON line.

Environment: SHARDFLOW_BOOTSTRAP_SERVERS, SHARDFLOW_REGISTRY_URL, SHARDFLOW_KAFKA_CLIENT_CONFIG (the
Java client file the stack wrote for shardflow-edge), SHARDFLOW_REGISTRY_CONFIG (its registry file),
SHARDFLOW_EDGE_IT_QUEUE, SHARDFLOW_EDGE_IT_DATASET, SHARDFLOW_EDGE_IT_VERSION, SHARDFLOW_EDGE_IT_DEVICE,
SHARDFLOW_EDGE_IT_COUNT. Secrets are read from those files, never from arguments.
"""

import json
import os
import re
import sys

import numpy as np

from shardflow.edge import EdgeProducer, load_registry_config
from shardflow.edge.registry_auth import read_properties


def librdkafka_settings(java_client_file: str) -> dict:
    """The librdkafka equivalent of a Java SCRAM client file (security.protocol, sasl.*, a PEM CA)."""
    java = read_properties(java_client_file)
    jaas = java["sasl.jaas.config"]
    return {"security.protocol": java["security.protocol"], "sasl.mechanism": java["sasl.mechanism"],
            "sasl.username": re.search(r'username="([^"]*)"', jaas).group(1),
            "sasl.password": re.search(r'password="([^"]*)"', jaas).group(1),
            "ssl.ca.location": java["ssl.truststore.location"]}


def main() -> int:
    env = os.environ
    registry = load_registry_config(env["SHARDFLOW_REGISTRY_CONFIG"])
    count = int(env["SHARDFLOW_EDGE_IT_COUNT"])
    device = env["SHARDFLOW_EDGE_IT_DEVICE"]
    with EdgeProducer(env["SHARDFLOW_EDGE_IT_DATASET"], env["SHARDFLOW_EDGE_IT_VERSION"],
                      bootstrap=env["SHARDFLOW_BOOTSTRAP_SERVERS"], registry=env["SHARDFLOW_REGISTRY_URL"],
                      queue_dir=env["SHARDFLOW_EDGE_IT_QUEUE"], device_id=device,
                      tensors=["image:float32:3x4x4", "label:int64"], label="label",
                      kafka_config=librdkafka_settings(env["SHARDFLOW_KAFKA_CLIENT_CONFIG"]),
                      registry_auth=registry.auth, registry_ca_bundle=registry.ca_bundle) as producer:
        ids = [producer.send({"image": np.full((3, 4, 4), n, np.float32)}, labels=n % 10, sample_id=f"{device}-{n}")
               for n in range(count)]
        remaining = producer.flush(180)
        stats = producer.stats()
    print(json.dumps({"ids": ids, "not_delivered": remaining, "last_error": stats.last_error}))
    return 0 if remaining == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
