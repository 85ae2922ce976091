"""The schema registry, as far as a producer needs it: Apicurio Registry 3.x, content-id framing.

ingest-app reads a record as Apicurio 3 frames it: ``0x00`` and the 4-byte content id of the writer
schema. Apicurio 2.x serdes (and some third-party ones) put an 8-byte global id there instead; a
record framed so decodes as garbage or as the wrong schema. So the producer refuses to start when
the id mode it is told to use is not ``contentId``, when the registry is not a 3.x one, or when the
id the registry returns does not give back the schema it registered.

A registry that authenticates (docs/ARCHITECTURE.md § 6) lets a device read but not register: the producer
then finds the version an admin registered (the latest of the topic's artifact) and checks, as after
registering, that its content id gives back this very schema and its references.
"""

from __future__ import annotations

import json
import logging
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
from typing import Optional

from shardflow.edge.errors import RegistryAccessDenied, RegistryModeMismatch
from shardflow.edge.registry_auth import OAuth2ClientCredentials, RegistryAuth, TokenEndpointUnavailable, authorization

LOG = logging.getLogger(__name__)

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
            f"(docs/producing/wire-format.md); only {ID_MODE!r} is accepted")
    if "/apis/registry/v2" in url or "/apis/ccompat" in url:
        raise RegistryModeMismatch(
            f"registry {url} is an Apicurio 2.x or Confluent-compatible API, whose ids are global ids: give the "
            "v3 core API, e.g. http://HOST:PORT/apis/registry/v3")


class RegistryClient:
    """``auth``: None, a (user, password) pair, or ``OAuth2ClientCredentials``. ``auto_register``:
    False never tries to register (a read-only device); True registers and, when the registry
    refuses it that (403), looks the schema up instead."""

    def __init__(self, url: str, topic: str, auth: RegistryAuth = None, ca_bundle: Optional[str] = None,
                 timeout: float = 10.0, auto_register: bool = True):
        self.url = url.rstrip("/")
        self.artifact_id = f"{topic}-value"
        self._timeout = timeout
        self._auth = auth
        self._auto_register = auto_register
        self._ssl = ssl.create_default_context(cafile=ca_bundle) if ca_bundle else None

    def _call(self, method: str, path: str, body: Optional[bytes] = None, content_type: Optional[str] = None):
        status, answer = self._call_once(method, path, body, content_type)
        if status == 401 and isinstance(self._auth, OAuth2ClientCredentials):
            self._auth.invalidate()  # expired or revoked before its time: one new token, one more try
            status, answer = self._call_once(method, path, body, content_type)
        return status, answer

    def _call_once(self, method: str, path: str, body: Optional[bytes], content_type: Optional[str]):
        headers = {"Accept": "application/json"}
        try:
            header = authorization(self._auth)
        except TokenEndpointUnavailable as e:
            raise RegistryUnavailable(str(e)) from e
        if header:
            headers["Authorization"] = header
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

    def _refuse(self, status: int, what: str) -> None:
        if status == 401:
            raise RegistryAccessDenied(f"registry {self.url} refused our credentials (HTTP 401) {what}: check "
                                       "registry.auth.* (a token from the identity provider the registry trusts)")
        if status == 403:
            raise RegistryAccessDenied(f"registry {self.url} refused our principal (HTTP 403) {what}: it has no "
                                       "registry role allowing it (registry.auth.client.id)")

    def check_access(self) -> None:
        """One authenticated read, as at every delivery: a 401 or 403 is a configuration error."""
        status, _ = self._call("GET", "/search/artifacts?limit=1")
        if status >= 500 or status == 429:
            raise RegistryUnavailable(f"registry {self.url} answered {status}")
        self._refuse(status, "reading artifacts")

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
        content_id = self._register_all() if self._auto_register else None
        if content_id is None:
            content_id = self._registered_content_id()
        if not 0 <= content_id < 2 ** 31:
            raise RegistryModeMismatch(f"content id {content_id} does not fit the 4-byte framing")
        self._check_content(content_id, SAMPLE_TYPE, TENSOR_ARTIFACT)
        return content_id

    def _register_all(self) -> Optional[int]:
        """The content id of the registered Sample, or None when this principal may not register."""
        dtype = self._register(DTYPE_ARTIFACT, REGISTERED[DTYPE_ARTIFACT], [])
        if dtype is None:
            LOG.info("registry %s: this principal may not register schemas (HTTP 403); looking up the version "
                     "an admin registered", self.url)
            return None
        tensor = self._register(TENSOR_ARTIFACT, REGISTERED[TENSOR_ARTIFACT], [_reference(DTYPE_ARTIFACT, dtype["version"])])
        sample = tensor and self._register(self.artifact_id, REGISTERED[SAMPLE_TYPE],
                                           [_reference(TENSOR_ARTIFACT, tensor["version"])])
        if sample is None:
            raise RegistryAccessDenied(f"registry {self.url} let us register {DTYPE_ARTIFACT} but not the rest (HTTP 403)")
        return sample["contentId"]

    def _registered_content_id(self) -> int:
        """The latest version of the topic's value artifact, as edge-client finds it with
        ``apicurio.registry.find-latest``; an admin registers it first (docs/ARCHITECTURE.md § 6)."""
        path = f"/groups/{ARTIFACT_GROUP}/artifacts/{urllib.parse.quote(self.artifact_id)}/versions/branch=latest"
        status, body = self._call("GET", path)
        if status >= 500 or status == 429:
            raise RegistryUnavailable(f"registry answered {status} looking up {self.artifact_id}")
        self._refuse(status, f"looking up {self.artifact_id}")
        if status == 404:
            raise RegistryModeMismatch(f"registry {self.url} has no {self.artifact_id} and this principal may not "
                                       "register it: an admin registers the samples schemas first (docs/operating/security.md)")
        if status != 200:
            raise RegistryModeMismatch(f"registry {self.url} answered HTTP {status} looking up {self.artifact_id}")
        return json.loads(body)["contentId"]

    def _check_content(self, content_id: int, schema: str, referenced: Optional[str]) -> None:
        """The content id gives back ``schema``, and its reference (if any) the registered type of that
        name, down the chain: a look-up must frame records exactly as a registration would."""
        status, stored = self._call("GET", f"/ids/contentIds/{content_id}")
        if status != 200 or json.loads(stored) != json.loads(REGISTERED[schema]):
            raise RegistryModeMismatch(f"registry {self.url}: content id {content_id} does not give back the {schema} "
                                       f"schema (HTTP {status}); refusing to frame records with it")
        status, body = self._call("GET", f"/ids/contentIds/{content_id}/references")
        references = json.loads(body) if status == 200 else None
        names = sorted(r.get("name") for r in references or [])
        if names != ([referenced] if referenced else []):
            raise RegistryModeMismatch(f"registry {self.url}: content id {content_id} refers to {names}, not "
                                       f"{[referenced] if referenced else []} (HTTP {status})")
        if referenced:
            ref = references[0]
            status, body = self._call("GET", f"/groups/{ref.get('groupId') or ARTIFACT_GROUP}/artifacts/"
                                             f"{urllib.parse.quote(ref['artifactId'])}/versions/{ref['version']}")
            if status != 200:
                raise RegistryModeMismatch(f"registry {self.url}: reference {ref['artifactId']} version {ref['version']} "
                                           f"answered HTTP {status}")
            self._check_content(json.loads(body)["contentId"], referenced,
                                DTYPE_ARTIFACT if referenced == TENSOR_ARTIFACT else None)

    def _register(self, artifact_id: str, text: str, references) -> Optional[dict]:
        content = {"content": text, "contentType": "application/json"}
        if references:
            content["references"] = references
        create = {"artifactId": artifact_id, "artifactType": "AVRO", "firstVersion": {"content": content}}
        status, body = self._call("POST", f"/groups/{ARTIFACT_GROUP}/artifacts?ifExists=FIND_OR_CREATE_VERSION",
                                  json.dumps(create).encode(), "application/json")
        if status >= 500 or status == 429:
            raise RegistryUnavailable(f"registry answered {status} registering {artifact_id}")
        if status == 403:
            return None
        self._refuse(status, f"registering {artifact_id}")
        if status not in (200, 201):
            raise RegistryModeMismatch(f"registry {self.url} refused schema {artifact_id} (HTTP {status}): "
                                       f"{body[:300].decode('utf-8', 'replace')}")
        return json.loads(body)["version"]


def _reference(artifact_id: str, version: str) -> dict:
    return {"artifactId": artifact_id, "version": version, "name": artifact_id}
