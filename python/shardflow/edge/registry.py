"""The schema registry, as far as a producer needs it: Apicurio Registry 3.x, content-id framing.

ingest-app reads a record as Apicurio 3 frames it: ``0x00`` and the 4-byte content id of the writer
schema. Apicurio 2.x serdes (and some third-party ones) put an 8-byte global id there instead; a
record framed so decodes as garbage or as the wrong schema. So the producer refuses to start when
the id mode it is told to use is not ``contentId``, when the registry is not a 3.x one, or when the
id the registry returns does not give back the schema it registered.
"""

from __future__ import annotations

import base64
import json
import ssl
import urllib.error
import urllib.request
from typing import Optional, Tuple

from shardflow.edge.errors import RegistryModeMismatch
from shardflow.edge.wire import SCHEMA_TEXT

ID_MODE = "contentId"
#: edge-client's serde registers under the topic's value artifact (TopicIdStrategy) in the default group
ARTIFACT_GROUP = "default"


class RegistryUnavailable(Exception):
    """The registry did not answer (an outage: retried)."""


def check_configuration(url: str, id_mode: str) -> None:
    """What can be checked without the network."""
    if id_mode != ID_MODE:
        raise RegistryModeMismatch(
            f"registry_id_mode={id_mode!r}: ingest-app reads Apicurio 3 framing, 0x00 + a 4-byte content id "
            f"(README, Wire format); only {ID_MODE!r} is accepted")
    if "/apis/registry/v2" in url or "/apis/ccompat" in url:
        raise RegistryModeMismatch(
            f"registry {url} is an Apicurio 2.x or Confluent-compatible API, whose ids are global ids: give the "
            "v3 core API, e.g. http://HOST:PORT/apis/registry/v3")


class RegistryClient:

    def __init__(self, url: str, topic: str, auth: Optional[Tuple[str, str]] = None,
                 ca_bundle: Optional[str] = None, timeout: float = 10.0):
        self.url = url.rstrip("/")
        self.artifact_id = f"{topic}-value"
        self._timeout = timeout
        self._headers = {"Accept": "application/json"}
        if auth:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            self._headers["Authorization"] = f"Basic {token}"
        self._ssl = ssl.create_default_context(cafile=ca_bundle) if ca_bundle else None

    def _call(self, method: str, path: str, body: Optional[bytes] = None, content_type: Optional[str] = None):
        headers = dict(self._headers)
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self._timeout, context=self._ssl) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()
        except (urllib.error.URLError, OSError) as e:
            raise RegistryUnavailable(f"registry {self.url} did not answer: {e}") from e

    def check_version(self) -> str:
        status, body = self._call("GET", "/system/info")
        if status >= 500:
            raise RegistryUnavailable(f"registry {self.url}/system/info answered {status}")
        if status != 200:
            raise RegistryModeMismatch(f"registry {self.url} has no v3 /system/info (HTTP {status}): not an "
                                       "Apicurio Registry 3.x, whose content-id framing ingest-app reads")
        version = str(json.loads(body).get("version", ""))
        if not version.startswith("3."):
            raise RegistryModeMismatch(f"registry {self.url} is Apicurio {version or '(unknown)'}; ingest-app reads "
                                       "Apicurio 3.x content-id framing")
        return version

    def content_id(self) -> int:
        """Registers the Sample schema (or finds it, as edge-client's serde does) and returns its
        content id, after checking that the id gives back this very schema."""
        self.check_version()
        create = {"artifactId": self.artifact_id, "artifactType": "AVRO",
                  "firstVersion": {"content": {"content": SCHEMA_TEXT, "contentType": "application/json"}}}
        status, body = self._call("POST", f"/groups/{ARTIFACT_GROUP}/artifacts?ifExists=FIND_OR_CREATE_VERSION",
                                  json.dumps(create).encode(), "application/json")
        if status >= 500 or status == 429:
            raise RegistryUnavailable(f"registry answered {status} registering the Sample schema")
        if status not in (200, 201):
            raise RegistryModeMismatch(f"registry {self.url} refused the Sample schema (HTTP {status}): "
                                       f"{body[:300].decode('utf-8', 'replace')}")
        content_id = json.loads(body)["version"]["contentId"]
        if not 0 <= content_id < 2 ** 31:
            raise RegistryModeMismatch(f"content id {content_id} does not fit the 4-byte framing")
        status, stored = self._call("GET", f"/ids/contentIds/{content_id}")
        if status != 200 or json.loads(stored) != json.loads(SCHEMA_TEXT):
            raise RegistryModeMismatch(f"registry {self.url}: content id {content_id} does not give back the Sample "
                                       f"schema (HTTP {status}); refusing to frame records with it")
        return content_id
