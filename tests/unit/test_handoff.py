"""Which CLI calls go to the warm process, and where its socket may live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphmem import handoff


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
    assert handoff.socket_path() == made / f"{handoff.code_stamp()}.sock"


def test_a_call_with_nothing_listening_runs_here(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(handoff, "start", lambda path: None)  # no process started here
    assert handoff.call(["recall", "x"]) is None
    monkeypatch.setenv(handoff.SWITCH, "off")
    assert handoff.call(["recall", "x"]) is None


def test_the_code_stamp_changes_with_graphmems_code(tmp_path: Path) -> None:
    before = handoff.code_stamp()
    module = Path(handoff.__file__)
    stamp = module.stat().st_mtime_ns
    try:
        os.utime(module, ns=(stamp + 10**9, stamp + 10**9))
        assert handoff.code_stamp() != before
    finally:
        os.utime(module, ns=(stamp, stamp))
    assert handoff.code_stamp() == before
