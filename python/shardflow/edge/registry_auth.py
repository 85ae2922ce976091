"""How the edge SDK authenticates to the schema registry: HTTP basic, or OAuth2 client credentials
(RFC 6749 section 4.4) against the identity provider the registry trusts, as the Java services and
edge-client do (docs/ARCHITECTURE.md § 6). Secrets never appear in a message, a log line or a ``repr``.

A secure local stack (``bin/shardflow stack up --secure``) writes one properties file per client,
with the keys the Java services read::

    registry.auth.token.endpoint=https://127.0.0.1:PORT/realms/shardflow/protocol/openid-connect/token
    registry.auth.client.id=shardflow-edge
    registry.auth.client.secret=...
    registry.tls.truststore.location=/path/ca.pem
    registry.tls.truststore.type=PEM

``load_registry_config(path)`` turns such a file into the producer's ``registry_auth`` and
``registry_ca_bundle``.
"""

from __future__ import annotations

import base64
import json
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple, Union

from shardflow.edge.errors import EdgeError, RegistryAccessDenied

#: a token is renewed this long before the identity provider says it expires
RENEW_BEFORE_S = 30.0


class TokenEndpointUnavailable(EdgeError):
    """The identity provider did not answer (an outage: retried like the registry's)."""


@dataclass
class OAuth2ClientCredentials:
    """A confidential client's id and secret, and the token endpoint that trades them for a bearer
    token; ``ca_bundle`` is the CA (PEM) the endpoint's certificate comes from, None for the system's."""

    token_endpoint: str
    client_id: str
    client_secret: str = field(repr=False)
    scope: Optional[str] = None
    ca_bundle: Optional[str] = None
    timeout: float = 10.0
    clock: Callable[[], float] = field(default=time.monotonic, repr=False)

    def __post_init__(self):
        self._lock = threading.Lock()
        self._token: Optional[str] = None
        self._renew_at = 0.0

    def header(self) -> str:
        """``Bearer <token>``, fetching a new token when none is held or it is about to expire."""
        with self._lock:
            if self._token is None or self.clock() >= self._renew_at:
                self._token, lifetime = self._fetch()
                self._renew_at = self.clock() + max(lifetime - RENEW_BEFORE_S, lifetime / 2)
            return "Bearer " + self._token

    def invalidate(self) -> None:
        """Forget the token (the registry refused it): the next ``header`` fetches a new one."""
        with self._lock:
            self._token = None

    def _fetch(self) -> Tuple[str, float]:
        form = {"grant_type": "client_credentials", "client_id": self.client_id, "client_secret": self.client_secret}
        if self.scope:
            form["scope"] = self.scope
        request = urllib.request.Request(self.token_endpoint, data=urllib.parse.urlencode(form).encode(), method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded",
                                                  "Accept": "application/json"})
        context = ssl.create_default_context(cafile=self.ca_bundle) if self.ca_bundle else None
        try:
            with urllib.request.urlopen(request, timeout=self.timeout, context=context) as response:
                body = json.loads(response.read())
        except urllib.error.HTTPError as e:
            error = _error_code(e.read())
            if e.code in (400, 401) and error in ("invalid_client", "unauthorized_client", "unauthorized", ""):
                raise RegistryAccessDenied(
                    f"the token endpoint {self.token_endpoint} refused client {self.client_id!r} (HTTP {e.code}"
                    f"{', ' + error if error else ''}): check registry.auth.client.id and registry.auth.client.secret") from None
            if e.code >= 500 or e.code == 429:
                raise TokenEndpointUnavailable(f"the token endpoint {self.token_endpoint} answered {e.code}") from None
            raise RegistryAccessDenied(f"the token endpoint {self.token_endpoint} answered HTTP {e.code}"
                                       f"{' (' + error + ')' if error else ''}: check registry.auth.*") from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise TokenEndpointUnavailable(f"the token endpoint {self.token_endpoint} did not answer: {e}") from e
        token = body.get("access_token") if isinstance(body, dict) else None
        if not token:
            raise RegistryAccessDenied(f"{self.token_endpoint} answered without an access_token: not an OAuth2 token "
                                       "endpoint (registry.auth.token.endpoint)")
        return token, float(body.get("expires_in") or 60)


def _error_code(body: bytes) -> str:
    try:
        error = json.loads(body).get("error", "")
        return error if isinstance(error, str) else ""
    except (ValueError, AttributeError):
        return ""


RegistryAuth = Union[None, Tuple[str, str], OAuth2ClientCredentials]


def authorization(auth: RegistryAuth) -> Optional[str]:
    """The ``Authorization`` header for ``auth``: basic for a (user, password) pair, a bearer token for OAuth2."""
    if auth is None:
        return None
    if isinstance(auth, OAuth2ClientCredentials):
        return auth.header()
    user, password = auth
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@dataclass(frozen=True)
class RegistryConfig:
    """What ``load_registry_config`` read: the producer's ``registry_auth`` and ``registry_ca_bundle``."""

    auth: RegistryAuth
    ca_bundle: Optional[str]


def load_registry_config(path: str) -> RegistryConfig:
    """Reads ``registry.auth.*`` and ``registry.tls.*`` from a properties file (the Java services' keys).
    A trust store must be a PEM file of CA certificates (``registry.tls.truststore.type=PEM``)."""
    settings = read_properties(path)
    store_type = settings.get("registry.tls.truststore.type", "PEM").upper()
    ca_bundle = settings.get("registry.tls.truststore.location") or None
    if ca_bundle and store_type != "PEM":
        raise ValueError(f"{path}: registry.tls.truststore.type={store_type}: Python reads only a PEM trust store")
    endpoint = settings.get("registry.auth.token.endpoint")
    if endpoint:
        for key in ("registry.auth.client.id", "registry.auth.client.secret"):
            if not settings.get(key):
                raise ValueError(f"{path}: {key} is required with registry.auth.token.endpoint")
        return RegistryConfig(OAuth2ClientCredentials(endpoint, settings["registry.auth.client.id"],
                                                      settings["registry.auth.client.secret"],
                                                      settings.get("registry.auth.client.scope") or None, ca_bundle), ca_bundle)
    user = settings.get("registry.auth.username")
    return RegistryConfig((user, settings.get("registry.auth.password", "")) if user else None, ca_bundle)


def read_properties(path: str) -> dict:
    """``key=value`` lines of a Java properties file (no continuation lines or escapes: the files we write have none)."""
    settings = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith(("#", "!")) and "=" in line:
                key, value = line.split("=", 1)
                settings[key.strip()] = value.strip()
    return settings
