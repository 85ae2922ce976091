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
import os

ID_MODE = "contentId"
#: edge-client's serde registers under the topic's value artifact (TopicIdStrategy) in the default group
ARTIFACT_GROUP = "default"
DTYPE_ARTIFACT, TENSOR_ARTIFACT, SAMPLE_TYPE = "io.shardflow.schemas.DType", "io.shardflow.schemas.Tensor", "io.shardflow.schemas.Sample"
_HERE = os.path.join(os.path.dirname(__file__), "registered")
REGISTERED = {name: open(os.path.join(_HERE, name + ".avsc"), encoding="utf-8").read().strip()
              for name in (DTYPE_ARTIFACT, TENSOR_ARTIFACT, SAMPLE_TYPE)}


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
        """Registers the Sample schema as edge-client's serializer does (or finds it) and returns its
        content id, after checking that the id gives back this very schema.

        The serializer registers each named type as its own artifact and refers to it by name: DType,
        Tensor (referring to DType), then the topic's value artifact (the Sample, referring to
        Tensor). The texts are the serializer's (python/shardflow/edge/registered, checked by
        edge-client's WireFixtureTest); same text and same references give the same content id."""
        self.check_version()
        dtype = self._register(DTYPE_ARTIFACT, REGISTERED[DTYPE_ARTIFACT], [])
        tensor = self._register(TENSOR_ARTIFACT, REGISTERED[TENSOR_ARTIFACT], [_reference(DTYPE_ARTIFACT, dtype["version"])])
        sample = self._register(self.artifact_id, REGISTERED[SAMPLE_TYPE], [_reference(TENSOR_ARTIFACT, tensor["version"])])
        content_id = sample["contentId"]
        if not 0 <= content_id < 2 ** 31:
            raise RegistryModeMismatch(f"content id {content_id} does not fit the 4-byte framing")
        status, stored = self._call("GET", f"/ids/contentIds/{content_id}")
        if status != 200 or json.loads(stored) != json.loads(REGISTERED[SAMPLE_TYPE]):
            raise RegistryModeMismatch(f"registry {self.url}: content id {content_id} does not give back the Sample "
                                       f"schema (HTTP {status}); refusing to frame records with it")
        return content_id

    def _register(self, artifact_id: str, text: str, references) -> dict:
        content = {"content": text, "contentType": "application/json"}
        if references:
            content["references"] = references
        create = {"artifactId": artifact_id, "artifactType": "AVRO", "firstVersion": {"content": content}}
        status, body = self._call("POST", f"/groups/{ARTIFACT_GROUP}/artifacts?ifExists=FIND_OR_CREATE_VERSION",
                                  json.dumps(create).encode(), "application/json")
        if status >= 500 or status == 429:
            raise RegistryUnavailable(f"registry answered {status} registering {artifact_id}")
        if status not in (200, 201):
            raise RegistryModeMismatch(f"registry {self.url} refused schema {artifact_id} (HTTP {status}): "
                                       f"{body[:300].decode('utf-8', 'replace')}")
        return json.loads(body)["version"]


def _reference(artifact_id: str, version: str) -> dict:
    return {"artifactId": artifact_id, "version": version, "name": artifact_id}
