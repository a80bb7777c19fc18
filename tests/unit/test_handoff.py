"""Which CLI calls go to the warm process, and where its socket may live."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from graphmem.base import handoff


@pytest.mark.parametrize(("argv", "handed"), [
    (["recall", "which cache?", "--json"], True),
    (["context"], True),
    (["get", "m-1"], True),
    (["remember", "--text", "The cache is Redis"], True),
    (["remember", "-t", "The cache is Redis"], True),
    (["remember", "--text=The cache is Redis"], True),
    (["remember"], False),  # reads stdin, which stays the caller's
    (["remember", "notes.ndjson"], False),
    (["ingest", "notes.md"], False),
    (["forget", "m-1", "--hard"], False),
    (["server", "start"], False),
    (["--help"], False),
    ([], False),
])
def test_only_short_calls_that_read_no_terminal_are_handed_off(argv: list[str],
                                                               handed: bool) -> None:
    assert handoff.eligible(argv) is handed


@pytest.mark.parametrize(("value", "on"), [
    (None, True), ("on", True), ("1", True), ("off", False), ("0", False), ("No", False),
    (" false ", False)])
def test_the_switch(value: str | None, on: bool) -> None:
    env = {} if value is None else {handoff.SWITCH: value}
    assert handoff.enabled(env) is on


def test_the_socket_folder_must_be_this_users_alone(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    made = handoff.private_folder()
    assert made == tmp_path / f"graphmem-{os.getuid()}"
    assert (made.stat().st_mode & 0o777) == 0o700
    made.chmod(0o755)  # another user could place a socket there
    assert handoff.private_folder() is None and handoff.socket_path() is None
    made.chmod(0o700)
    # Named by the code's stamp. In one CI run the stamp changed for a moment and back
    # while the name was read (what touched graphmem's files was not found), so the name
    # is read again (a few times at most) until it lies between two equal stamps.
    for _ in range(5):
        before, path, after = handoff.code_stamp(), handoff.socket_path(), handoff.code_stamp()
        if path is not None and path.stem == before == after:
            break
    assert path is not None and path.parent == made and path.suffix == ".sock"
    assert path.stem == before == after


def test_a_call_with_nothing_listening_runs_here(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(handoff, "start", lambda path: None)  # no process started here
    assert handoff.call(["recall", "x"]) is None
    monkeypatch.setenv(handoff.SWITCH, "off")
    assert handoff.call(["recall", "x"]) is None


def test_the_code_stamp_changes_with_graphmems_code(tmp_path: Path) -> None:
    # Any module of the package and any query, not only the hand-off's own folder; on a
    # copy of their layout (changing graphmem's own files would move the stamp of every
    # warm process the suite's other workers run meanwhile).
    import graphmem

    assert Path(graphmem.__file__).resolve().parent == handoff.PACKAGE
    package = tmp_path / "graphmem"
    changed = [package / "read" / "rank.py", tmp_path / "cypher" / "recall" / "retrieve.cypher"]
    for path in [package / "base" / "handoff.py", *changed]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    before = handoff.code_stamp(package)
    for path in changed:
        stamp = path.stat().st_mtime_ns
        os.utime(path, ns=(stamp + 10**9, stamp + 10**9))
        assert handoff.code_stamp(package) != before, path
        os.utime(path, ns=(stamp, stamp))
        assert handoff.code_stamp(package) == before


def test_the_warm_process_starts_with_no_secret_and_no_python_path() -> None:
    caller = {"PATH": "callers-bin", "HOME": "callers-home", "LC_ALL": "C.UTF-8",
              "GRAPHMEM_SCOPE": "team:ops", "GRAPHMEM_EMBEDDING_API_KEY": "sk-1",
              "GRAPHMEM_SUMMARY_API_KEY": "sk-2", "NEO4J_PASSWORD": "hunter2",
              "NEO4J_URI": "bolt://db:7687", "PYTHONPATH": "planted-folder",
              "PYTHONSTARTUP": "planted.py", "OPENAI_API_KEY": "sk-3", "AWS_SECRET": "x"}
    assert handoff.start_env(caller) == {
        "PATH": "callers-bin", "HOME": "callers-home", "LC_ALL": "C.UTF-8",
        "GRAPHMEM_SCOPE": "team:ops"}


def test_calls_answered_at_once_each_see_only_their_own_environment_and_output(
        tmp_path: Path) -> None:
    import threading

    import typer

    from graphmem.base.settings import load_settings
    from graphmem.cli import warm
    from graphmem.cli.output import answering, call, emit, say

    both = threading.Barrier(2, timeout=10)
    app = typer.Typer()

    @app.command()
    def where(code: int) -> None:
        both.wait()  # the two calls are under way together
        scope = load_settings(environ=call().env).scope
        emit({"scope": scope}, True, lambda c: None)
        say(f"{scope} warns")
        raise typer.Exit(code)

    def runner(argv: list[str], given: warm.Call) -> int:
        with answering(given):
            return int(app(args=argv, standalone_mode=False) or 0)

    answers: dict[str, dict] = {}

    def answer(name: str, code: int) -> None:
        answers[name] = warm.run_call(runner, [str(code)],
                                      {"GRAPHMEM_SCOPE": f"scope-{name}"}, str(tmp_path), 0)

    before = (dict(os.environ), sys.stdout, sys.stderr)
    threads = [threading.Thread(target=answer, args=(n, c)) for n, c in (("a", 0), ("b", 3))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers["a"] == {"stdout": '{"scope": "scope-a"}\n', "stderr": "scope-a warns\n",
                            "code": 0}
    assert answers["b"] == {"stdout": '{"scope": "scope-b"}\n', "stderr": "scope-b warns\n",
                            "code": 3}
    assert (dict(os.environ), sys.stdout, sys.stderr) == before  # nothing was swapped
