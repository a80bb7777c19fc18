"""`graphmem warm serve|status|stop`: the process that answers handed-off CLI calls
(`graphmem.handoff`). It keeps graphmem imported and the embedding model loaded, and runs
each call as the command would have run it: the caller's arguments, environment (so its
settings and scope), working folder and terminal width, its output captured and sent back
with the exit code. One call at a time."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import socket
import struct
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from graphmem import handoff
from graphmem.cli.output import JsonOpt, emit, handled

app = typer.Typer(help="The warm process that answers recall, context, get and remember "
                  "--text calls in milliseconds (GRAPHMEM_WARM=off: none).",
                  no_args_is_help=True, rich_markup_mode="markdown")


#: Runs one command's arguments here and returns its exit code (`graphmem.cli.run`).
Runner = Callable[[list[str]], int]


def serve(socket_path: Path | None, idle: float, run: Runner) -> None:
    """Answer handed-off calls with `run` until idle (`graphmem warm serve`, which
    `graphmem.cli` declares: the command runner lives there)."""
    path = socket_path or handoff.socket_path()
    if path is None:
        raise typer.Exit(1)  # no private folder: calls keep running on their own
    lock = path.with_suffix(".lock").open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        raise typer.Exit(0) from None  # another one serves this graphmem already
    path.unlink(missing_ok=True)  # a socket its dead owner left
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)  # the socket is this user's alone, as its folder is
    try:
        listener.bind(str(path))
    finally:
        os.umask(mask)
    listener.listen(16)
    state = {"pid": os.getpid(), "since": time.time(), "calls": 0, "socket": str(path)}
    try:
        _warm_up()
        listener.settimeout(idle)
        while True:
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                return
            with conn:
                if not _answer(conn, state, run):
                    return
    finally:
        listener.close()
        path.unlink(missing_ok=True)
        path.with_suffix(".lock").unlink(missing_ok=True)
        lock.close()


def _warm_up() -> None:
    """Import what the calls run and load the embedding model of this environment's
    settings, so the first call handed over is as fast as the next. (graphmem.cli, which
    runs them, is loaded already: it declares `warm serve`.)"""
    import graphmem.api  # noqa: F401
    from graphmem import embed
    from graphmem.settings import load_settings

    with contextlib.suppress(Exception):  # a call reports what is wrong, in its own words
        embed.from_settings(load_settings()).warm()


def _answer(conn: socket.socket, state: dict[str, Any], run: Runner) -> bool:
    """Read one request and answer it; False when asked to stop."""
    creds = getattr(socket, "SO_PEERCRED", None)
    if creds is not None:
        _pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, creds, 12))
        if uid != os.getuid():
            return True  # not this user's call (the folder should have kept it out)
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    try:
        request = json.loads(b"".join(chunks))
    except ValueError:
        return True
    if request.get("stop"):
        _send(conn, {**state, "stopping": True})
        return False
    if request.get("status"):
        _send(conn, state)
        return True
    state["calls"] += 1
    _send(conn, run_call(run, request["argv"], request["env"], request["cwd"],
                         int(request.get("columns") or 0)))
    return True


def _send(conn: socket.socket, answer: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the caller gave up
        conn.sendall(json.dumps(answer).encode())


def run_call(run: Runner, argv: list[str], env: dict[str, str], cwd: str,
             columns: int) -> dict[str, Any]:
    """Run `graphmem ARGV` here as the caller would have run it; its stdout, stderr and
    exit code."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    try:
        os.environ.clear()
        os.environ.update(env)
        os.environ.pop("COLUMNS", None)
        if columns:
            os.environ["COLUMNS"] = str(columns)
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = run(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # what would have ended the caller's own process
                traceback.print_exc()
                code = 1
    except OSError as e:  # the caller's folder is gone
        err.write(f"error: {e}\n")
        code = 1
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        with contextlib.suppress(OSError):
            os.chdir(saved_cwd)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def ask(request: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """Send a status or stop request to the warm process at `path`; its answer, or None
    when none runs there."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(5.0)
    try:
        conn.connect(str(path))
        conn.sendall(json.dumps(request).encode())
        conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        answer = json.loads(b"".join(chunks))
    except (OSError, ValueError):
        return None
    finally:
        conn.close()
    return answer if isinstance(answer, dict) else None


@app.command("status")
@handled
def status(as_json: JsonOpt = False) -> None:
    """Say whether a warm process serves this graphmem (exit 3 when none does)."""
    path = handoff.socket_path()
    found = ask({"status": True}, path) if path else None
    emit({"running": found is not None, **(found or {})}, as_json,
         lambda c: c.print(f"warm process {found['pid']}: {found['calls']} calls since "
                           f"{time.strftime('%H:%M:%S', time.localtime(found['since']))}"
                           if found else "no warm process"))
    if found is None:
        raise typer.Exit(3)


def stop_all() -> list[int]:
    """Stop every warm process of this user (this graphmem's, and those an older or other
    install left); their process ids."""
    where = handoff.private_folder()
    stopped = []
    for path in sorted(where.glob("*.sock")) if where else []:
        answer = ask({"stop": True}, path)
        if answer is not None:
            stopped.append(int(answer["pid"]))
    return stopped


@app.command("stop")
@handled
def stop(as_json: JsonOpt = False) -> None:
    """Stop this user's warm processes, if any run."""
    stopped = stop_all()
    emit({"stopped": stopped}, as_json,
         lambda c: c.print(f"stopped {', '.join(map(str, stopped))}" if stopped
                           else "no warm process"))
