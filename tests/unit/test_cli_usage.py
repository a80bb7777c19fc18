"""Usage errors (Typer's own: a missing argument, an unknown flag or command) follow
graphmem's rule: one line on stderr naming what is wrong, exit 1."""

from __future__ import annotations

import subprocess
import sys

import pytest


def graphmem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "graphmem", *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize(("args", "names"), [
    (["feedback"], "Missing argument 'memory_id'"),
    (["recall", "hi", "--bogus"], "No such option: --bogus"),
    (["recall", "hi", "--top-k", "x"], "'--top-k'"),
    (["nosuchcmd"], "No such command 'nosuchcmd'"),
])
def test_usage_errors_are_one_line_and_exit_1(args: list[str], names: str) -> None:
    done = graphmem(*args)
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: ") and names in done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_help_still_works() -> None:
    done = graphmem("recall", "--help")
    assert done.returncode == 0 and "--top-k" in done.stdout
    assert "<int>" in done.stdout  # a value's type is shown


@pytest.mark.parametrize("command", [[], ["recall"], ["drop-scope"], ["remember"]])
def test_a_flag_shows_no_value_in_help(command: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "graphmem", *command, "--help"],
                          capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "COLUMNS": "120"})
    assert done.returncode == 0 and "--help" in done.stdout
    assert "<bool>" not in done.stdout, done.stdout
