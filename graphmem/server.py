"""A local Neo4j 5.26 Community server and Neo4j Browser, assembled from Maven Central.

For machines without Docker. The jars are fetched once by Maven into a user cache
(later starts need no network); the server's home (conf, data, logs, pid) lives in
`settings.server_home`. Neo4j's own launcher (`Neo4jBoot`, from neo4j-bootcheck) starts
it in the background with the JVM options of neo4j.conf and keeps its pid file, so
`stop` stops only the server this home started.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from graphmem.errors import ServerError
from graphmem.settings import Settings

NEO4J_VERSION = "5.26.30"
BROWSER_VERSION = "5.24.0"  # the newest Neo4j Browser jar on Maven Central
ARTIFACTS = (
    ("org.neo4j", "neo4j", NEO4J_VERSION),  # the Community DBMS and CommunityEntryPoint
    ("org.neo4j.app", "neo4j-server", NEO4J_VERSION),  # HTTP, which serves Browser
    ("org.neo4j", "neo4j-bootcheck", NEO4J_VERSION),  # Neo4jBoot / Neo4jAdminBoot launchers
    ("org.neo4j.client", "neo4j-browser", BROWSER_VERSION),
)
BOOT = "org.neo4j.server.startup.Neo4jBoot"
ADMIN = "org.neo4j.server.startup.Neo4jAdminBoot"

# The JVM options the official tarball's neo4j.conf ships for Java 17.
JVM_OPTIONS = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
)

Say = Callable[[str], None]


class ServerStatus(BaseModel):
    """Whether the local server runs, and where to reach it."""

    running: bool
    pid: int | None = None
    uri: str
    browser: str
    home: str
    version: str = NEO4J_VERSION


def _quiet(_: str) -> None:
    pass


class LocalServer:
    """The Neo4j server of one home folder."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lib = settings.cache_dir / f"neo4j-{NEO4J_VERSION}" / "lib"
        self.home = settings.server_home
        self.pid_file = self.home / "run" / "neo4j.pid"

    @property
    def uri(self) -> str:
        """The Bolt URI of this server."""
        return f"bolt://127.0.0.1:{self.settings.server_bolt_port}"

    @property
    def browser(self) -> str:
        """The Neo4j Browser URL of this server."""
        return f"http://127.0.0.1:{self.settings.server_http_port}/browser/"

    def pid(self) -> int | None:
        """The pid of the running server of this home, or None."""
        try:
            pid = int(self.pid_file.read_text().strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def status(self) -> ServerStatus:
        """Report whether this home's server runs."""
        pid = self.pid()
        return ServerStatus(running=pid is not None, pid=pid, uri=self.uri, browser=self.browser,
                            home=str(self.home))

    def assemble(self, say: Say = _quiet) -> Path:
        """Fetch the server and Browser jars into the cache once; return the lib folder."""
        if (self.lib / ".complete").is_file():
            return self.lib
        mvn = shutil.which("mvn")
        if mvn is None:
            raise ServerError("Maven (mvn) is not installed",
                              "install Java 17+ and Maven, or run Neo4j with docker/")
        say(f"assembling Neo4j {NEO4J_VERSION} and Browser {BROWSER_VERSION} from Maven Central "
            f"into {self.lib} (once)")
        self.lib.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=self.lib.parent) as tmp:
            pom = Path(tmp, "pom.xml")
            pom.write_text(_pom())
            staged = Path(tmp, "lib")
            cmd = [mvn, "-B", "-q", "-f", str(pom), "dependency:copy-dependencies",
                   f"-DoutputDirectory={staged}", "-DincludeScope=runtime"]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
                raise ServerError("Maven could not fetch Neo4j: " + " | ".join(tail),
                                  "check that Maven Central is reachable")
            (staged / ".complete").write_text(NEO4J_VERSION)
            if self.lib.exists():
                shutil.rmtree(self.lib)
            staged.rename(self.lib)
        return self.lib

    def start(self, say: Say = _quiet) -> ServerStatus:
        """Start the server in the background (assembling it first) and wait until Bolt answers."""
        if self.pid() is not None:
            say(f"Neo4j already runs (pid {self.pid()})")
            return self.status()
        check_java()
        for port in (self.settings.server_bolt_port, self.settings.server_http_port):
            if listening(port):
                raise ServerError(f"port {port} on 127.0.0.1 is taken by another process",
                                  "stop it, or set GRAPHMEM_SERVER_BOLT_PORT / _HTTP_PORT")
        self.assemble(say)
        self._prepare_home()
        if not (self.home / "data" / "databases" / "system").exists():
            self._java(ADMIN, "dbms", "set-initial-password",
                       self.settings.neo4j_password.get_secret_value())
        say(f"starting Neo4j {NEO4J_VERSION} in {self.home}")
        self._java(BOOT, "start")
        self._wait_for_bolt(say)
        return self.status()

    def stop(self, say: Say = _quiet) -> bool:
        """Stop this home's server if it runs; True if one was stopped."""
        if self.pid() is None:
            say("Neo4j is not running")
            return False
        self._java(BOOT, "stop")
        return True

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of the server's logs, to explain a failed start."""
        out = []
        for name in ("neo4j.log", "debug.log"):
            path = self.home / "logs" / name
            if path.is_file():
                text = path.read_text(errors="replace").splitlines()[-lines:]
                out.append(f"--- {path}\n" + "\n".join(text))
        return "\n".join(out) or "(no server log yet)"

    def _prepare_home(self) -> None:
        (self.home / "conf").mkdir(parents=True, exist_ok=True)
        link = self.home / "lib"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(self.lib, target_is_directory=True)
        (self.home / "conf" / "neo4j.conf").write_text(neo4j_conf(self.settings))

    def _java(self, main: str, *args: str) -> str:
        env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf")}
        cmd = ["java", "-cp", f"{self.lib}/*", main, *args]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False,
                              timeout=300)
        if done.returncode != 0:
            output = (done.stdout + done.stderr).strip().splitlines()[-3:]
            raise ServerError(f"`{main.rsplit('.', 1)[-1]} {args[0]}` failed: "
                              + " | ".join(output) + "\n" + self.log_tail())
        return done.stdout

    def _wait_for_bolt(self, say: Say) -> None:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, ServiceUnavailable

        auth = (self.settings.neo4j_user, self.settings.neo4j_password.get_secret_value())
        deadline = time.monotonic() + self.settings.server_start_timeout
        while time.monotonic() < deadline:
            if self.pid() is None:
                raise ServerError("Neo4j stopped while starting:\n" + self.log_tail())
            try:
                with GraphDatabase.driver(self.uri, auth=auth, connection_timeout=2) as driver:
                    driver.verify_connectivity()
                say(f"Neo4j is up at {self.uri} (Browser: {self.browser})")
                return
            except AuthError as e:
                raise ServerError(f"Neo4j at {self.uri} runs but refuses NEO4J_PASSWORD",
                                  f"this home was created with another password: {self.home}"
                                  ) from e
            except (ServiceUnavailable, OSError):
                time.sleep(0.5)
        raise ServerError(f"Neo4j did not answer on {self.uri} within "
                          f"{self.settings.server_start_timeout:.0f} s:\n" + self.log_tail())


def neo4j_conf(settings: Settings) -> str:
    """The neo4j.conf of a local server: loopback only, authentication on, sized for 2 cores."""
    bolt, http = settings.server_bolt_port, settings.server_http_port
    lines = [
        "# Written by `graphmem server start`; edits are overwritten at the next start.",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        f"server.bolt.listen_address=127.0.0.1:{bolt}",
        f"server.http.listen_address=127.0.0.1:{http}",
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        f"server.memory.heap.initial_size={settings.server_heap}",
        f"server.memory.heap.max_size={settings.server_heap}",
        f"server.memory.pagecache.size={settings.server_pagecache}",
        "db.tx_log.rotation.retention_policy=2 files",
        "dbms.usage_report.enabled=false",
        *(f"server.jvm.additional={o}" for o in JVM_OPTIONS),
    ]
    return "\n".join(lines) + "\n"


def check_java() -> int:
    """The major version of `java` on PATH; ServerError if missing or older than 17."""
    if shutil.which("java") is None:
        raise ServerError("Java is not installed", "install Java 17 or 21, or use docker/")
    done = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    found = re.search(r'version "(\d+)', done.stderr + done.stdout)
    major = int(found.group(1)) if found else 0
    if major < 17:
        raise ServerError(f"Neo4j {NEO4J_VERSION} needs Java 17 or 21; found {major or 'none'}")
    return major


def listening(port: int) -> bool:
    """True if something accepts TCP connections on 127.0.0.1:`port`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _pom() -> str:
    deps = "\n".join(
        f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency>"
        for g, a, v in ARTIFACTS
    )
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>graphmem</groupId>
  <artifactId>neo4j-local</artifactId>
  <version>{NEO4J_VERSION}</version>
  <packaging>pom</packaging>
  <dependencies>
{deps}
  </dependencies>
</project>
"""
