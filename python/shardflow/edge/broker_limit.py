"""The largest record the broker takes on the samples topic (``max.message.bytes``), so ``send``
refuses a sample that could never be delivered, naming the limit, instead of queueing it.

Read from the broker at start when it answers and the principal may (DESCRIBE_CONFIGS, which the
least-privileged edge principal lacks) the first time, then remembered in the queue directory;
otherwise the configured value. The record's size is counted before compression, as librdkafka
counts it, with room for the batch and record framing.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from typing import Dict, Optional

LOG = logging.getLogger(__name__)
#: the local stack's samples topic setting (docs/operating/limits.md): 1 MiB of sample plus 64 KiB of framing
DEFAULT_MAX_MESSAGE_BYTES = (1 << 20) + (64 << 10)
#: record batch header (61) and one record's own framing, headers included, generously
RECORD_OVERHEAD_BYTES = 256
_FILE = "broker-limit.json"


@dataclass(frozen=True)
class BrokerLimit:
    max_message_bytes: int
    source: str  # where the figure came from, for the error message

    def fits(self, key_bytes: int, value_bytes: int) -> bool:
        return key_bytes + value_bytes + RECORD_OVERHEAD_BYTES <= self.max_message_bytes


def resolve(queue_dir: str, topic: str, configured: Optional[int]) -> BrokerLimit:
    """The configured value, else the one remembered from the broker, else the default (then
    ``probe`` asks the broker in the background, so an offline start is not held up)."""
    if configured is not None:
        return BrokerLimit(int(configured), "max_message_bytes as configured")
    path = os.path.join(queue_dir, _FILE)
    try:
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
        if saved.get("topic") == topic:
            return BrokerLimit(int(saved["maxMessageBytes"]), f"the broker's max.message.bytes of topic {topic}, as read "
                                                              f"before (remembered in {path})")
    except (OSError, ValueError, KeyError):
        pass
    return BrokerLimit(DEFAULT_MAX_MESSAGE_BYTES, f"the default max.message.bytes of topic {topic} (the broker's own "
                                                  "is not known yet; set max_message_bytes)")


def probe(queue_dir: str, topic: str, admin_settings: Dict[str, object], timeout: float = 30.0) -> Optional[BrokerLimit]:
    """Asks the broker (DESCRIBE_CONFIGS on the topic) and remembers the answer in the queue directory."""
    found = _from_broker(topic, admin_settings, timeout)
    if found is None:
        return None
    _remember(os.path.join(queue_dir, _FILE), topic, found)
    return BrokerLimit(found, f"the broker's max.message.bytes of topic {topic}")


def _from_broker(topic: str, admin_settings: Dict[str, object], timeout: float) -> Optional[int]:
    try:
        from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType
        admin = AdminClient({k: v for k, v in admin_settings.items() if not _producer_only(k)})
        resource = ConfigResource(ResourceType.TOPIC, topic)
        configs = admin.describe_configs([resource], request_timeout=timeout)[resource].result(timeout)
        return int(configs["max.message.bytes"].value)
    except Exception as e:  # noqa: BLE001 - offline or not allowed: fall back, as the docstring says
        LOG.info("edge producer: cannot read max.message.bytes of %s from the broker (%s); using the remembered or "
                 "configured value", topic, e)
        return None


def _producer_only(key: str) -> bool:
    return key in ("acks", "enable.idempotence", "enable.gapless.guarantee", "message.timeout.ms", "compression.type",
                   "linger.ms", "batch.size", "retry.backoff.max.ms")


def _remember(path: str, topic: str, value: int) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump({"topic": topic, "maxMessageBytes": value}, f)
    os.replace(tmp, path)
