"""A producer setting that never reaches a broker or a registry, and a Kafka client that accepts nothing."""

OFFLINE = dict(bootstrap="127.0.0.1:1", registry="http://127.0.0.1:1/apis/registry/v3", max_message_bytes=(1 << 20) + (64 << 10))


class SilentProducer:
    """Stands in for confluent_kafka.Producer where delivery is not under test: accepts nothing."""

    def produce(self, *a, **k):
        raise BufferError("offline")

    def poll(self, timeout=0):
        return 0

    def flush(self, timeout=0):
        return 0

    def purge(self):
        pass
