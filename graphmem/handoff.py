"""The warm path: a CLI call handed to a graphmem process that is already running, so an
agent's `graphmem recall` costs what the recall costs, not the imports and the model's
load (docs/decisions.md, "A CLI call goes to a warm process").

The first call of a kind that can be handed off (`recall`, `context`, `get`, `remember
--text`) runs as usual and starts that process in the background (`graphmem warm serve`);
later calls send their arguments, environment, working folder and terminal width over a
Unix socket only this user can open, and print what comes back. The process answers one
call at a time, exits after IDLE_SECONDS without one, and is replaced when graphmem's code
changes. GRAPHMEM_WARM=off keeps every call in its own process.

Standard library only: this module runs before anything else of graphmem is imported.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: Commands whose call is handed over: they read no terminal and write little.
COMMANDS = frozenset({"recall", "context", "get", "remember"})
#: A warm process with no call for this long exits.
IDLE_SECONDS = 900.0
#: How long a call waits to reach the warm process before it runs on its own.
CONNECT_SECONDS = 0.5
#: The environment switch; "off" (or "0", "no", "false") keeps calls in their own process.
SWITCH = "GRAPHMEM_WARM"
_OFF = {"off", "0", "no", "false"}


def eligible(argv: list[str]) -> bool:
    """Whether `argv` (without the program name) is a call the warm process may answer:
    one of COMMANDS, and `remember` only with --text (else it reads stdin, which stays
    this process's)."""
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


def code_stamp() -> str:
    """What names a warm process: this Python, graphmem's place and version, and the
    modification times of its code and queries, so a changed graphmem gets a new one."""
    package = Path(__file__).resolve().parent
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


def call(argv: list[str]) -> int | None:
    """Hand `argv` to the warm process and print its answer; its exit code, or None when
    this call must run in this process (not eligible, switched off, or no warm process
    answers, in which case one is started for the next call)."""
    if not eligible(argv) or not enabled():
        return None
    try:
        path = socket_path()
    except OSError:
        return None
    if path is None:
        return None
    answer = _ask(path, argv)
    if answer is None:
        start(path)
        return None
    sys.stdout.write(answer.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(answer.get("stderr", ""))
    return int(answer.get("code", 1))


def _ask(path: Path, argv: list[str]) -> dict[str, Any] | None:
    """Send one call; the answer, or None when nothing answers at `path`. A process that
    took the call and died answers exit 2 (the call's writes may or may not have landed)."""
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
    try:
        conn.settimeout(None)  # the call takes as long as it takes
        conn.sendall(json.dumps(request).encode() + b"\n")
        conn.shutdown(socket.SHUT_WR)
        data = _read_all(conn)
    except OSError:
        data = b""
    finally:
        conn.close()
    try:
        answer = json.loads(data)
    except ValueError:
        return {"stdout": "", "code": 2, "stderr": "error: the warm graphmem process "
                "ended during the call; run it again (GRAPHMEM_WARM=off runs each call "
                "on its own)\n"}
    return answer if isinstance(answer, dict) else None


def _read_all(conn: socket.socket) -> bytes:
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def start(path: Path) -> None:
    """Start a warm process for `path` in the background, detached from this call's
    terminal and output (it may already be starting: the loser of two exits at once)."""
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-m", "graphmem", "warm", "serve", "--socket", str(path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
