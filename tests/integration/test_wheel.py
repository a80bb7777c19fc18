"""The package as a user installs it: the sdist builds, the wheel built from it installs
into a fresh venv, and from there `graphmem --version`, `init`, `remember` and `recall`
run against the real server, so the Cypher files, the Browser style, the jar locks and
the samples are in the wheel. The fresh venv takes its dependencies (torch and the rest)
from this one's site-packages instead of installing them again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from importlib import metadata
from pathlib import Path

from graphmem.api import GraphMem

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=600, check=False)
    assert done.returncode == 0, f"{args[:3]}: {done.stderr[-2000:]}"
    return done


def test_the_wheel_installs_and_runs_from_a_fresh_venv(mem: GraphMem, tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "build", "--outdir", dist, ROOT)  # the sdist, then its wheel
    [wheel] = dist.glob("graphmem-*.whl")
    assert len(list(dist.glob("graphmem-*.tar.gz"))) == 1
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("graphmem/cypher/recall/retrieve.cypher",
                   "graphmem/cypher/explore/graphmem.grass", "graphmem/py.typed",
                   "graphmem/samples/project_notes.jsonl"):
        assert needed in names, needed
    assert any(n.startswith("graphmem/graph/locks/neo4j-") for n in names)

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
                .stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", wheel)

    s = mem.settings
    env = {**os.environ, "NEO4J_URI": s.neo4j_uri,
           "NEO4J_PASSWORD": s.neo4j_password.get_secret_value(), "GRAPHMEM_SCOPE": s.scope}
    env.pop("PYTHONPATH", None)
    graphmem = venv / "bin" / "graphmem"
    where = run(python, "-c", "import graphmem; print(graphmem.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(site)), where.stdout  # the wheel, not the checkout
    version = metadata.version("graphmem")  # this checkout's pyproject
    assert run(graphmem, "--version", cwd=tmp_path).stdout.strip() == f"graphmem {version}"
    init = run(graphmem, "init", "--json", env=env, cwd=tmp_path)
    assert "recall's queries planned in" in init.stderr  # the first recall will not wait
    run(graphmem, "ingest", "--json", site / "graphmem" / "samples" / "project_notes.jsonl",
        env=env, cwd=tmp_path)
    hits = json.loads(run(graphmem, "recall", "when is the staging database refreshed?",
                          "--json", env=env, cwd=tmp_path).stdout)["hits"]
    assert hits and "anonymised production snapshot" in hits[0]["text"]
