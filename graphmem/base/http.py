"""Running an ASGI app under uvicorn the way graphmem's doors do: logs on stderr (stdout
is for results), and on SIGTERM a graceful stop — no new connections, the requests in
flight finished — after which the caller closes what it holds."""

from __future__ import annotations

import copy
import socket
from typing import Any

from graphmem.base.errors import InputError

#: The addresses a server may listen on without credentials.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: How long a stopping server waits for the requests in flight.
GRACE_SECONDS = 30
#: How long an idle connection stays open: longer than a client's pause between requests,
#: so a client seldom sends on a connection the server is closing (uvicorn's 5 s default
#: let busy clients meet closed connections).
KEEP_ALIVE_SECONDS = 75


def check_free(host: str, port: int) -> None:
    """An InputError naming the port if another process listens there (uvicorn said so
    in a logged traceback and exit 3)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as e:
            raise InputError(f"cannot listen on {host}:{port}: {e.strerror or e} (another "
                             "server may hold it; choose one with --port)",
                             field="--port") from None


def run(app: Any, host: str, port: int) -> None:
    """Serve `app` at host:port until SIGINT or SIGTERM (the caller has checked the port
    is free with `check_free` before saying where it serves)."""
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    logs = copy.deepcopy(LOGGING_CONFIG)
    for handler in logs["handlers"].values():
        handler["stream"] = "ext://sys.stderr"
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=logs,
                                  log_level="warning",
                                  timeout_keep_alive=KEEP_ALIVE_SECONDS,
                                  timeout_graceful_shutdown=GRACE_SECONDS)).run()
