"""`graphmem warm serve|status|stop`: the process that answers handed-off CLI calls
(`graphmem.base.handoff`). It keeps graphmem imported and the embedding model loaded, and runs
each call as the command would have run it: the caller's arguments, environment (so its
settings and scope), working folder (for graphmem.toml) and terminal width, its output
captured and sent back with the exit code. Calls run concurrently, each on its own
thread, each with its environment and streams as a value (`output.Call`): no call sees
another's, and nothing of the process is swapped."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from graphmem.base import handoff
from graphmem.cli import warm_stores
from graphmem.cli.options import JsonOpt
from graphmem.cli.output import Call, emit, handled

app = typer.Typer(help="The warm process that answers recall, context, get and remember "
                  "--text calls in milliseconds (GRAPHMEM_WARM=off: none).",
                  no_args_is_help=True, rich_markup_mode="markdown")


#: Runs one command's arguments here with a call's environment and streams, and returns
#: its exit code (`graphmem.cli.run`).
Runner = Callable[[list[str], Call], int]
#: Whether the parsed command `argv` is one the warm process may answer
#: (`graphmem.cli.handed_off`).
Takes = Callable[[list[str]], bool]
#: How long a stopping warm process waits for the calls it has taken.
DRAIN_SECONDS = 60.0


#: Settings that name a file or folder: a relative one is the caller's folder's.
PATHS = ("GRAPHMEM_CONFIG", "GRAPHMEM_CACHE_DIR", "GRAPHMEM_SERVER_HOME", "GRAPHMEM_SERVER_JAVA")


def call_env(env: dict[str, str], cwd: str, columns: int) -> dict[str, str]:
    """The environment a call runs with: its caller's, with the terminal's width, and
    every relative path in it (graphmem.toml, a model's folder, ...) taken from the
    caller's folder, as the call would have on its own (the warm process's is
    elsewhere)."""
    env = dict(env)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    env.setdefault("GRAPHMEM_CONFIG", "graphmem.toml")
    for name in PATHS:
        if env.get(name):
            env[name] = os.path.join(cwd, env[name])  # an absolute one stays as it is
    # A model is named, or is a folder: a folder of the caller's, if there is one.
    model = env.get("GRAPHMEM_EMBEDDING_MODEL", "")
    if model and not os.path.isabs(model) and os.path.exists(os.path.join(cwd, model)):
        env["GRAPHMEM_EMBEDDING_MODEL"] = os.path.join(cwd, model)
    return env


def run_call(run: Runner, argv: list[str], env: dict[str, str], cwd: str,
             columns: int) -> dict[str, Any]:
    """Run `graphmem ARGV` here as the caller would have run it, with its environment and
    streams of its own (`Call`); its stdout, stderr and exit code. Safe to call from many
    threads at once."""
    out, err = io.StringIO(), io.StringIO()
    call = Call(call_env(env, cwd, columns), out, err)
    try:
        with warm_stores.sharing():
            if not os.path.isdir(cwd):
                raise FileNotFoundError(f"the working folder {cwd} is gone")
            try:
                code = run(argv, call)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # what would have ended the caller's own process
                err.write(traceback.format_exc())
                code = 1
    except OSError as e:
        err.write(f"error: {e}\n")
        code = 1
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "code": code}


def serve(socket_path: Path | None, idle: float, run: Runner, takes: Takes) -> None:
    """Answer handed-off calls with `run` until idle (`graphmem warm serve`, which
    `graphmem.cli` declares: the command runner lives there). It serves only at its own
    code's socket: one started for another graphmem (a caller's PYTHONPATH or folder
    held another) exits, and that graphmem's calls run on their own."""
    path = socket_path or handoff.socket_path()
    if path is None or path.stem != handoff.code_stamp():
        raise typer.Exit(1)  # no private folder, or not this code's socket
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
    listener.listen(64)
    server = _Server(path, run, takes)
    try:
        _warm_up()
        threading.Thread(target=server.beat, name="warm-heartbeat", daemon=True).start()
        listener.settimeout(0.25)  # how often it looks at the clock and for a stop
        while not server.finished(idle):
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            server.touch()
            threading.Thread(target=server.answer, args=(conn,), name="warm-call",
                             daemon=True).start()
        server.drain(DRAIN_SECONDS)
    finally:
        warm_stores.close_all()
        listener.close()
        path.unlink(missing_ok=True)
        path.with_suffix(".lock").unlink(missing_ok=True)
        lock.close()


def _warm_up() -> None:
    """Import what the calls run and load the embedding model of this environment's
    settings, so the first call handed over is as fast as the next. (graphmem.cli, which
    runs them, is loaded already: it declares `warm serve`.)"""
    import graphmem.api  # noqa: F401
    from graphmem.base.settings import load_settings
    from graphmem.embedding import chosen

    with contextlib.suppress(Exception):  # a call reports what is wrong, in its own words
        chosen.from_settings(load_settings()).warm()


class _Server:
    """The calls a warm process has taken: each answered on its own thread, each told
    every HEARTBEAT_SECONDS that it is still being worked on."""

    def __init__(self, path: Path, run: Runner, takes: Takes) -> None:
        self.run, self.takes = run, takes
        self.state: dict[str, Any] = {
            "pid": os.getpid(), "since": time.time(), "calls": 0, "socket": str(path),
            "graphmem": str(handoff.PACKAGE),
            "cwd": os.getcwd(), "sys_path": list(sys.path)}
        self._lock = threading.Lock()
        self._working: dict[socket.socket, threading.Lock] = {}
        self._stop = threading.Event()
        self._last = time.monotonic()

    def touch(self) -> None:
        with self._lock:
            self._last = time.monotonic()

    def finished(self, idle: float) -> bool:
        """Asked to stop, or no call for `idle` seconds and none under way."""
        with self._lock:
            quiet = not self._working and time.monotonic() - self._last > idle
        return self._stop.is_set() or quiet

    def drain(self, most: float) -> None:
        """Wait (at most `most` seconds) for the calls under way to be answered."""
        deadline = time.monotonic() + most
        while time.monotonic() < deadline:
            with self._lock:
                if not self._working:
                    return
            time.sleep(0.05)

    def beat(self) -> None:
        """Tell every caller whose call is under way that it is (a newline each)."""
        while True:
            time.sleep(handoff.HEARTBEAT_SECONDS)
            with self._lock:
                working = list(self._working.items())
            for conn, sending in working:
                with sending, contextlib.suppress(OSError):
                    conn.send(b"\n")

    def answer(self, conn: socket.socket) -> None:
        """Take one connection's request and answer it."""
        with conn:
            creds = getattr(socket, "SO_PEERCRED", None)
            if creds is not None:
                _pid, uid, _gid = struct.unpack(
                    "3i", conn.getsockopt(socket.SOL_SOCKET, creds, 12))
                if uid != os.getuid():
                    return  # not this user's call (the folder should have kept it out)
            conn.settimeout(5.0)  # a request is a few kB, sent at once
            try:
                conn.sendall(b"\n")  # taken: the caller sends its call now
                request = json.loads(_read_all(conn))
            except OSError:
                return  # the caller went away: nothing is run
            except ValueError:
                request = None
            if not isinstance(request, dict):  # no whole request (an interrupted caller)
                _send(conn, {"not_run": True})
                return
            if request.get("stop"):
                self._stop.set()
                _send(conn, {**self.state, "stopping": True})
            elif request.get("status"):
                _send(conn, self.state)
            else:
                self._call(conn, request)

    def _call(self, conn: socket.socket, request: dict[str, Any]) -> None:
        try:
            argv = [str(a) for a in request["argv"]]
            env = {str(k): str(v) for k, v in dict(request["env"]).items()}
            cwd, columns = str(request["cwd"]), int(request.get("columns") or 0)
        except (KeyError, TypeError, ValueError):
            return
        if not self.takes(argv):
            _send(conn, {"decline": True})  # the caller runs it on its own
            return
        sending = threading.Lock()
        with self._lock:
            self.state["calls"] += 1
            self._working[conn] = sending
        try:
            answer = run_call(self.run, argv, env, cwd, columns)
        finally:
            with self._lock:
                del self._working[conn]
                self._last = time.monotonic()
        with sending:
            conn.settimeout(handoff.SILENT_SECONDS)
            _send(conn, answer)


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _send(conn: socket.socket, answer: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):  # the caller gave up
        conn.sendall(json.dumps(answer).encode())


def ask(request: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """Send a status or stop request to the warm process at `path`; its answer, or None
    when none runs there."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(5.0)
    try:
        conn.connect(str(path))
        conn.sendall(json.dumps(request).encode())
        conn.shutdown(socket.SHUT_WR)
        answer = json.loads(_read_all(conn))
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
