"""Running an ASGI app under uvicorn the way graphmem's doors do: logs on stderr (stdout
is for results), and on SIGTERM a graceful stop — no new connections, the requests in
flight finished — after which the caller closes what it holds."""

from __future__ import annotations

import copy
from typing import Any

#: The addresses a server may listen on without credentials.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
#: How long a stopping server waits for the requests in flight.
GRACE_SECONDS = 30
#: How long an idle connection stays open: longer than a client's pause between requests,
#: so a client seldom sends on a connection the server is closing (uvicorn's 5 s default
#: let busy clients meet closed connections).
KEEP_ALIVE_SECONDS = 75


def run(app: Any, host: str, port: int) -> None:
    """Serve `app` at host:port until SIGINT or SIGTERM."""
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    logs = copy.deepcopy(LOGGING_CONFIG)
    for handler in logs["handlers"].values():
        handler["stream"] = "ext://sys.stderr"
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_config=logs,
                                  log_level="warning",
                                  timeout_keep_alive=KEEP_ALIVE_SECONDS,
                                  timeout_graceful_shutdown=GRACE_SECONDS)).run()
