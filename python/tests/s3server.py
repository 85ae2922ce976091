"""A real S3 server for tests, started as a process on 127.0.0.1: MinIO (the production target)
when ``scripts/fetch-tools.sh`` built it, else S3Proxy 4.1.0 (both honour ``If-None-Match`` on
PutObject and CompleteMultipartUpload). Tools are found through ``tools.properties`` in
``$SHARDFLOW_TOOLS_DIR`` (default ``~/.cache/shardflow/tools``), as the Java local stack finds them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from typing import Dict, Optional

ACCESS_KEY = "shardflow-test"
SECRET_KEY = "shardflow-test-secret"


@dataclass
class S3Server:
    kind: str
    endpoint: str
    process: subprocess.Popen
    bucket: str = "ckpt-tests"

    def settings(self) -> Dict[str, str]:
        return {"endpoint": self.endpoint, "access_key": ACCESS_KEY, "secret_key": SECRET_KEY}

    def env(self) -> Dict[str, str]:
        return {"SHARDFLOW_S3_ENDPOINT": self.endpoint, "SHARDFLOW_S3_ACCESS_KEY": ACCESS_KEY,
                "SHARDFLOW_S3_SECRET_KEY": SECRET_KEY}

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def tools() -> Dict[str, str]:
    props = os.path.join(os.environ.get("SHARDFLOW_TOOLS_DIR", os.path.expanduser("~/.cache/shardflow/tools")),
                         "tools.properties")
    found = {}
    if os.path.exists(props):
        with open(props) as f:
            for line in f:
                if "=" in line and not line.startswith("#"):
                    k, v = line.strip().split("=", 1)
                    found[k] = v
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(work_dir: str, prefer: Optional[str] = None) -> Optional[S3Server]:
    """Starts MinIO (or S3Proxy) in ``work_dir``; None when neither is installed."""
    t = tools()
    minio = t.get("minio.binary")
    jar = t.get("s3proxy.jar")
    kinds = [k for k in ([prefer] if prefer else ["minio", "s3proxy"])
             if (k == "minio" and minio and os.path.exists(minio))
             or (k == "s3proxy" and jar and os.path.exists(jar) and shutil.which("java"))]
    if not kinds:
        return None
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    os.makedirs(work_dir, exist_ok=True)
    log = open(os.path.join(work_dir, "server.log"), "w")
    if kinds[0] == "minio":
        env = dict(os.environ, MINIO_ROOT_USER=ACCESS_KEY, MINIO_ROOT_PASSWORD=SECRET_KEY, MINIO_UPDATE="off")
        cmd = [minio, "server", "--address", f"127.0.0.1:{port}", "--console-address", f"127.0.0.1:{free_port()}",
               "--certs-dir", os.path.join(work_dir, "certs"), os.path.join(work_dir, "data")]
        probe = endpoint + "/minio/health/live"
    else:
        env = dict(os.environ)
        conf = os.path.join(work_dir, "s3proxy.conf")
        os.makedirs(os.path.join(work_dir, "data"), exist_ok=True)
        with open(conf, "w") as f:
            f.write(f"s3proxy.endpoint={endpoint}\ns3proxy.authorization=aws-v2-or-v4\n"
                    f"s3proxy.identity={ACCESS_KEY}\ns3proxy.credential={SECRET_KEY}\n"
                    f"jclouds.provider=filesystem\njclouds.filesystem.basedir={os.path.join(work_dir, 'data')}\n")
        cmd = ["java", "-Xmx512m", "-jar", jar, "--properties", conf]
        probe = endpoint + "/"
    process = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = S3Server(kinds[0], endpoint, process)
    deadline = time.monotonic() + 120  # a loaded machine starts a JVM slowly
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log_text = open(os.path.join(work_dir, "server.log")).read()[-2000:]
            raise RuntimeError(f"{kinds[0]} exited at start: {log_text}")
        try:
            urllib.request.urlopen(probe, timeout=2)
            break
        except urllib.error.HTTPError:
            break  # S3Proxy answers 403 to an anonymous GET: it is up
        except OSError:
            time.sleep(0.2)
    else:
        server.stop()
        raise RuntimeError(f"{kinds[0]} did not answer at {endpoint} within 120 s")
    from shardflow.storage.store import S3Settings, S3Store

    S3Store(server.bucket, S3Settings(**server.settings())).client.create_bucket(Bucket=server.bucket)
    return server
