"""The edge SDK's registry authentication on its own: OAuth2 client credentials (one token until it is
about to expire, a refusal named by its setting, never the secret), the properties file a secure stack
writes, and the look-up a read-only device falls back to. Stand-in HTTP servers here; the real
Keycloak and Apicurio are in integration-tests (SecureRegistryTest)."""

import http.server
import json
import threading
import urllib.parse

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from shardflow.edge import OAuth2ClientCredentials, RegistryAccessDenied, RegistryModeMismatch, load_registry_config
from shardflow.edge.registry import (DTYPE_ARTIFACT, REGISTERED, SAMPLE_TYPE, TENSOR_ARTIFACT, RegistryClient,
                                     RegistryUnavailable)
from shardflow.edge.registry_auth import TokenEndpointUnavailable


class Fake:
    """An HTTP server answering from ``routes``: {(method, path): (status, json body)}; records requests."""

    def __init__(self, routes):
        self.routes, self.requests = routes, []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                length = int(self.headers.get("Content-Length") or 0)
                fake.requests.append((self.command, self.path, self.headers.get("Authorization"), self.rfile.read(length)))
                status, body = fake.routes.get((self.command, self.path.split("?")[0]), (404, {"error": "not here"}))
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

            def log_message(self, *args):
                pass
        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake():
    servers = []

    def start(routes):
        servers.append(Fake(routes))
        return servers[-1]
    yield start
    for server in servers:
        server.close()


def test_should_fetch_one_token_until_it_is_about_to_expire(fake):
    idp = fake({("POST", "/token"): (200, {"access_token": "t-1", "expires_in": 300, "token_type": "Bearer"})})
    now = [1000.0]
    creds = OAuth2ClientCredentials(idp.url + "/token", "shardflow-edge", "s3cret-value", clock=lambda: now[0])
    assert creds.header() == "Bearer t-1"
    now[0] += 269  # 300 s lifetime, renewed 30 s before
    assert creds.header() == "Bearer t-1"
    assert len(idp.requests) == 1
    form = urllib.parse.parse_qs(idp.requests[0][3].decode())
    assert form == {"grant_type": ["client_credentials"], "client_id": ["shardflow-edge"], "client_secret": ["s3cret-value"]}
    now[0] += 2
    creds.header()
    assert len(idp.requests) == 2
    creds.invalidate()
    creds.header()
    assert len(idp.requests) == 3


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=8, max_size=40))
def test_should_name_the_settings_and_never_the_secret_when_the_client_is_refused(fake, secret):
    idp = fake({("POST", "/token"): (401, {"error": "invalid_client", "error_description": "Invalid client credentials"})})

    def refusal(client_secret):
        creds = OAuth2ClientCredentials(idp.url + "/token", "shardflow-edge", client_secret)
        with pytest.raises(RegistryAccessDenied) as refused:
            creds.header()
        return str(refused.value), repr(creds)

    # A secret that is a word of the message anyway ("endpoint", "registry") proves nothing either way.
    without_secret = refusal("\x01")
    assume(all(secret not in text for text in without_secret))
    message, shown = refusal(secret)
    assert "registry.auth.client.secret" in message and "invalid_client" in message
    assert secret not in message and secret not in shown


def test_should_treat_an_unreachable_token_endpoint_as_an_outage(fake):
    creds = OAuth2ClientCredentials("http://127.0.0.1:1/token", "shardflow-edge", "s3cret-value", timeout=2)
    with pytest.raises(TokenEndpointUnavailable):
        creds.header()
    registry = RegistryClient("http://127.0.0.1:1/apis/registry/v3", "samples", auth=creds, timeout=2)
    with pytest.raises(RegistryUnavailable):  # the sender retries these
        registry.check_access()


def test_should_read_the_properties_file_a_secure_stack_writes(tmp_path):
    file = tmp_path / "shardflow-edge-registry.properties"
    file.write_text("# holds secrets\nregistry.auth.token.endpoint=https://127.0.0.1:8443/realms/shardflow/protocol/openid-connect/token\n"
                    "registry.auth.client.id=shardflow-edge\nregistry.auth.client.secret=abc=def\n"
                    "registry.tls.truststore.location=/etc/ca.pem\nregistry.tls.truststore.type=PEM\n")
    config = load_registry_config(str(file))
    assert isinstance(config.auth, OAuth2ClientCredentials)
    assert (config.auth.token_endpoint, config.auth.client_id, config.auth.client_secret, config.auth.ca_bundle) == (
        "https://127.0.0.1:8443/realms/shardflow/protocol/openid-connect/token", "shardflow-edge", "abc=def", "/etc/ca.pem")
    assert config.ca_bundle == "/etc/ca.pem" and "abc=def" not in repr(config)
    file.write_text("registry.auth.token.endpoint=https://idp/token\nregistry.auth.client.id=x\n")
    with pytest.raises(ValueError, match="registry.auth.client.secret is required"):
        load_registry_config(str(file))
    file.write_text("registry.tls.truststore.location=/etc/ca.p12\nregistry.tls.truststore.type=PKCS12\n")
    with pytest.raises(ValueError, match="only a PEM trust store"):
        load_registry_config(str(file))


def _read_only_registry(sample_text):
    """An Apicurio 3 that refuses registration (403) and holds what an admin registered: DType (content
    3), Tensor (5, referring to DType) and samples-value (7, the Sample, referring to Tensor)."""
    base = "/apis/registry/v3"

    def ref(artifact):
        return [{"groupId": "default", "artifactId": artifact, "version": "1", "name": artifact}]
    return {("GET", base + "/system/info"): (200, {"name": "Apicurio Registry", "version": "3.0.9"}),
            ("GET", base + "/search/artifacts"): (200, {"count": 0, "artifacts": []}),
            ("POST", base + "/groups/default/artifacts"): (403, {"title": "forbidden"}),
            ("GET", base + "/groups/default/artifacts/samples-value/versions/branch=latest"): (200, {"contentId": 7}),
            ("GET", base + "/ids/contentIds/7"): (200, json.loads(sample_text)),
            ("GET", base + "/ids/contentIds/7/references"): (200, ref(TENSOR_ARTIFACT)),
            ("GET", base + f"/groups/default/artifacts/{TENSOR_ARTIFACT}/versions/1"): (200, {"contentId": 5}),
            ("GET", base + "/ids/contentIds/5"): (200, json.loads(REGISTERED[TENSOR_ARTIFACT])),
            ("GET", base + "/ids/contentIds/5/references"): (200, ref(DTYPE_ARTIFACT)),
            ("GET", base + f"/groups/default/artifacts/{DTYPE_ARTIFACT}/versions/1"): (200, {"contentId": 3}),
            ("GET", base + "/ids/contentIds/3"): (200, json.loads(REGISTERED[DTYPE_ARTIFACT])),
            ("GET", base + "/ids/contentIds/3/references"): (200, [])}


def test_should_look_up_what_an_admin_registered_when_it_may_not_register(fake):
    registry = fake(_read_only_registry(REGISTERED[SAMPLE_TYPE]))
    client = RegistryClient(registry.url + "/apis/registry/v3", "samples", auth=("device", "pw"))
    assert client.content_id() == 7
    assert [r[0] for r in registry.requests].count("POST") == 1  # tried DType once, then looked up
    assert all(r[2] and r[2].startswith("Basic ") for r in registry.requests if "/system/info" not in r[1])

    registry.requests.clear()
    assert RegistryClient(registry.url + "/apis/registry/v3", "samples", auto_register=False).content_id() == 7
    assert [r[0] for r in registry.requests].count("POST") == 0


def test_should_refuse_a_looked_up_schema_that_is_not_this_one(fake):
    other = json.loads(REGISTERED[SAMPLE_TYPE])
    other["fields"] = other["fields"][:-1]
    registry = fake(_read_only_registry(json.dumps(other)))
    with pytest.raises(RegistryModeMismatch, match="does not give back the io.shardflow.schemas.Sample schema"):
        RegistryClient(registry.url + "/apis/registry/v3", "samples", auto_register=False).content_id()


def test_should_stop_on_a_refused_read_naming_the_setting(fake):
    base = "/apis/registry/v3"
    for status, setting in ((401, "registry.auth"), (403, "registry.auth.client.id")):
        registry = fake({("GET", base + "/search/artifacts"): (status, {"title": "no"})})
        with pytest.raises(RegistryAccessDenied, match=setting):
            RegistryClient(registry.url + base, "samples", auth=("device", "pw")).check_access()
