"""The warm path: a CLI call handed to a graphmem process that is already running, so an
agent's `graphmem recall` costs what the recall costs, not the imports and the model's
load (docs/decisions.md, "A CLI call goes to a warm process").

The first call of a kind that can be handed off (`recall`, `context`, `get`, `remember
--text`) runs as usual and starts that process in the background (`graphmem warm serve`),
isolated from the caller: no module is imported from the caller's folder or PYTHONPATH,
it runs in its own folder, and it starts with only the environment it needs (`start`).
Later calls send their arguments, environment, working folder and terminal width over a
Unix socket only this user can open, and print what comes back. The process answers
calls concurrently, takes each at once (a caller that hears nothing within
CONNECT_SECONDS runs the call itself), exits after IDLE_SECONDS without one, and is
replaced when graphmem's code changes. GRAPHMEM_WARM=off keeps every call in its own
process.

Standard library only: this module runs before anything else of graphmem is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Commands whose call is handed over: they read no terminal and write little.
COMMANDS = frozenset({"recall", "context", "get", "remember"})
#: Of those, the ones that write: an interrupted caller waits for their outcome.
WRITES = frozenset({"remember"})
#: A warm process with no call for this long exits.
IDLE_SECONDS = 900.0
#: How long a call waits for the warm process to take it before it runs on its own.
CONNECT_SECONDS = 0.5
#: While it works on a call, the warm process says so this often (one newline)...
HEARTBEAT_SECONDS = 1.0
#: ...and a caller that hears nothing for this long stops waiting for it.
SILENT_SECONDS = 15.0
#: The environment switch; "off" (or "0", "no", "false") keeps calls in their own process.
SWITCH = "GRAPHMEM_WARM"
_OFF = {"off", "0", "no", "false"}
#: What the warm process starts with of the caller's environment: where things live and
#: how numbers are computed, and graphmem's own settings but for secrets. Each call then
#: brings its caller's whole environment, for that call alone.
START_ENV = frozenset({"PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR"})
START_ENV_PREFIXES = ("LC_", "XDG_", "GRAPHMEM_", "OPENBLAS_", "OMP_", "MKL_")
_SECRET = re.compile(r"PASSWORD|TOKEN|SECRET|KEY", re.IGNORECASE)
#: What a caller prints when it is interrupted, and its exit code.
INTERRUPTED, INTERRUPTED_CODE = "error: interrupted\n", 130


def eligible(argv: list[str]) -> bool:
    """Whether `argv` (without the program name) may be offered to the warm process: one
    of COMMANDS, and `remember` only when --text appears. The warm process decides from
    the parsed command and declines what it must not answer (a `remember` whose --text
    is another flag's value reads stdin, which stays this process's)."""
    if not argv or argv[0] not in COMMANDS:
        return False
    if argv[0] == "remember":
        return any(a in ("--text", "-t") or a.startswith("--text=") for a in argv[1:])
    return True


def enabled(environ: dict[str, str] | None = None) -> bool:
    """Whether calls may be handed off (GRAPHMEM_WARM is not off)."""
    env = os.environ if environ is None else environ
    return env.get(SWITCH, "on").strip().lower() not in _OFF


def folder() -> Path:
    """The sockets' folder, this user's alone: XDG_RUNTIME_DIR/graphmem, else a folder in
    the temporary directory named for the user id."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime and Path(runtime).is_dir() else \
        Path(tempfile.gettempdir())
    return base / f"graphmem-{os.getuid()}"


def private_folder() -> Path | None:
    """`folder()`, made if missing; None when it is not this user's alone (0700, owned):
    a socket there could be another user's."""
    where = folder()
    with contextlib.suppress(FileExistsError):
        where.mkdir(mode=0o700, parents=True)
    info = where.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() \
            or stat.S_IMODE(info.st_mode) & 0o077:
        return None
    return where


#: graphmem's package folder (this module's is base/, inside it).
PACKAGE = Path(__file__).resolve().parents[1]


def code_stamp(package: Path = PACKAGE) -> str:
    """What names a warm process: this Python, graphmem's place and version, and the
    modification times of its code and queries (`package`'s, and the cypher/ beside it),
    so a changed graphmem gets a new one."""
    parts = [sys.executable, str(package)]
    for root in (package, package.parent / "cypher"):
        if root.is_dir():
            parts += [f"{p}:{p.stat().st_mtime_ns}" for p in sorted(root.rglob("*"))
                      if p.suffix in (".py", ".cypher")]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def socket_path(stamp: str | None = None) -> Path | None:
    """The warm process's socket for this graphmem, or None when there is no private
    folder for it."""
    where = private_folder()
    return None if where is None else where / f"{stamp or code_stamp()}.sock"


#: `_ask`'s word for "a warm process is there but did not take the call" (busy, stopped
#: or declining it): the call runs here, and no second warm process is started.
_NOT_TAKEN: dict[str, Any] = {"not_taken": True}


def call(argv: list[str]) -> int | None:
    """Hand `argv` to the warm process and print its answer; its exit code, or None when
    this call must run in this process (not eligible, switched off, or not taken by a
    warm process; when none runs, one is started for the next call)."""
    if not eligible(argv) or not enabled():
        return None
    try:
        path = socket_path()
    except OSError:
        return None
    if path is None:
        return None
    # A write's answer, once in, is printed whatever the caller presses: `_ask` stops
    # Ctrl-C from then on, and it comes back here once the answer is out.
    previous = signal.getsignal(signal.SIGINT)
    try:
        answer = _ask(path, argv)
        if answer is None:
            start(path)
            return None
        if answer is _NOT_TAKEN:
            return None
        sys.stdout.write(answer.get("stdout", ""))
        sys.stdout.flush()
        sys.stderr.write(answer.get("stderr", ""))
        sys.stderr.flush()
        return int(answer.get("code", 1))
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


def _ask(path: Path, argv: list[str]) -> dict[str, Any] | None:
    """Send one call; the answer, None when nothing listens at `path`, or _NOT_TAKEN.
    The warm process first says it takes the call, and only then is the call sent, so a
    caller interrupted before that has sent nothing. A process that took the call and
    died, or went silent, answers exit 2 for a write (it may or may not have landed); a
    read it went silent on runs here instead."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(CONNECT_SECONDS)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        return None
    request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(),
               "columns": shutil.get_terminal_size((0, 0)).columns
               if sys.stdout.isatty() else 0}
    writes = argv[0] in WRITES
    sending = False
    received: list[bytes] = []  # kept by an interrupt: the answer may be in already
    try:
        try:
            if not conn.recv(1):  # the warm process takes a call at once, or not at all
                return _NOT_TAKEN
            sending = True
            conn.sendall(json.dumps(request).encode() + b"\n")
            conn.shutdown(socket.SHUT_WR)
            conn.settimeout(SILENT_SECONDS)  # it says it is alive while it works
            _read_into(conn, received)
            if writes:  # the answer is in: it is printed, whatever is pressed now
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        except TimeoutError:
            if not sending or not writes:
                return _NOT_TAKEN  # nothing of it was printed: the call runs here
            return _lost("went silent during the call")
        except OSError:
            received.clear()
        except KeyboardInterrupt:
            return _interrupted(conn, sending and writes, received)
    finally:
        conn.close()
    try:
        answer = json.loads(b"".join(received))
    except ValueError:
        return _lost("ended during the call")
    if not isinstance(answer, dict) or answer.get("decline"):
        return _NOT_TAKEN
    return answer


def _lost(what: str) -> dict[str, Any]:
    return {"stdout": "", "code": 2, "stderr": f"error: the warm graphmem process {what}; "
            "a write may or may not have landed: check, then run it again "
            "(GRAPHMEM_WARM=off runs each call on its own)\n"}


def _interrupted(conn: socket.socket, wait: bool, received: list[bytes]) -> dict[str, Any]:
    """Ctrl-C during a handed-off call. A read is dropped. A write the warm process has
    taken may be committing: the caller waits for its outcome (the rest of it, after what
    was `received` already) and reports it, so a write either lands and is reported or
    is not made (further interrupts are ignored from here until it is printed, `call`;
    it waits for at most SILENT_SECONDS of silence)."""
    if not wait:
        return {"stdout": "", "stderr": INTERRUPTED, "code": INTERRUPTED_CODE}
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stderr.write("interrupted: the write was handed off already; waiting for "
                     "its outcome\n")
    sys.stderr.flush()
    try:
        _read_into(conn, received)
        answer = json.loads(b"".join(received))
    except (OSError, ValueError):
        return _lost("ended after the interrupt")
    if not isinstance(answer, dict):
        return _lost("ended after the interrupt")
    if answer.get("not_run") or answer.get("decline"):  # it had not the whole call
        return {"stdout": "", "stderr": INTERRUPTED, "code": INTERRUPTED_CODE}
    return {**answer, "stderr": answer.get("stderr", "") + INTERRUPTED,
            "code": answer.get("code") or INTERRUPTED_CODE}


def _read_into(conn: socket.socket, received: list[bytes]) -> None:
    """Read `conn` to its end into `received` (which holds what came before an
    interrupt, too)."""
    while chunk := conn.recv(65536):
        received.append(chunk)


def start_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a warm process starts with: START_ENV and START_ENV_PREFIXES of
    `environ`, less anything named like a secret (PYTHONPATH and the like never)."""
    return {k: v for k, v in environ.items()
            if (k in START_ENV or k.startswith(START_ENV_PREFIXES)) and not _SECRET.search(k)}


def start(path: Path) -> None:
    """Start a warm process for `path` in the background, detached from this call's
    terminal and output (it may already be starting: the loser of two exits at once).
    It runs isolated: -E ignores PYTHON* variables (PYTHONPATH), -P puts no folder of
    the caller's on sys.path, its working folder is its socket's, and its environment
    is `start_env`'s. It serves only if it imports the graphmem this caller runs (the
    socket's name is that code's stamp)."""
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-E", "-P", "-m", "graphmem", "warm", "serve",
             "--socket", str(path)],
            cwd=path.parent, env=start_env(os.environ),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
