"""The Docker files hold together (no engine needed): compose validates, and the image
runs the CLI and MCP server from the same package."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_validates_with_neo4j_and_graphmem() -> None:
    """Debian's docker-compose validates compose files without an engine; `.ci/run`
    installs it and sets GRAPHMEM_REQUIRE_COMPOSE=1, so there it never skips."""
    if shutil.which("docker-compose") is None:
        if os.environ.get("GRAPHMEM_REQUIRE_COMPOSE") == "1":
            pytest.fail("docker-compose is not installed (GRAPHMEM_REQUIRE_COMPOSE=1)")
        pytest.skip("no docker-compose to validate the compose file with")
    compose = ROOT / "docker" / "docker-compose.yml"
    done = subprocess.run(["docker-compose", "-f", str(compose), "config", "--services"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["neo4j", "graphmem"]
    full = subprocess.run(["docker-compose", "-f", str(compose), "config"],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    assert "bolt://neo4j:7687" in full and "service_healthy" in full


def test_dockerfile_installs_the_package_and_serves_mcp() -> None:
    text = (ROOT / "docker" / "Dockerfile").read_text(encoding="utf-8")
    for path in ("pyproject.toml", "graphmem", "cypher"):
        assert f"COPY {path}" in text
    assert 'ENTRYPOINT ["graphmem"]' in text and 'CMD ["mcp"]' in text
    assert "torch==" not in text  # the default install, which needs none


def test_service_compose_runs_two_replicas_behind_one_port() -> None:
    if shutil.which("docker-compose") is None:
        if os.environ.get("GRAPHMEM_REQUIRE_COMPOSE") == "1":
            pytest.fail("docker-compose is not installed (GRAPHMEM_REQUIRE_COMPOSE=1)")
        pytest.skip("no docker-compose to validate the compose file with")
    compose = ROOT / "docker" / "service-compose.yml"
    done = subprocess.run(["docker-compose", "-f", str(compose), "config"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    services = subprocess.run(["docker-compose", "-f", str(compose), "config", "--services"],
                              capture_output=True, text=True, timeout=60, check=True)
    assert sorted(services.stdout.split()) == ["balancer", "neo4j", "replica-a", "replica-b"]
    assert done.stdout.count("0.0.0.0") >= 2 and "/readyz" in done.stdout
    nginx = (ROOT / "docker" / "nginx.conf").read_text(encoding="utf-8")
    assert "replica-a:8080" in nginx and "replica-b:8080" in nginx
