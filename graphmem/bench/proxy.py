"""A TCP proxy on loopback to a real Neo4j's Bolt port, for faults graphmem must live
through: a server that stops answering, one gone for seconds (a leader change, a
rolling restart), a commit whose answer is lost. `bench serve --outage` and the fault
tests stand it between graphmem and the server (docs/decisions.md, "A server that went
away is waited for")."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any


class TcpProxy:
    """A TCP proxy on loopback to a real server (Neo4j's Bolt port) that a test can
    hold: while held, no byte crosses it either way (a server that stopped answering),
    and once let go everything held goes through; or take down: every open connection
    cut and new ones refused (a server gone, as in a leader change), until `up`; or lose
    the answers to the next commits (`lose_commit_answers`). Its threads end with
    `close`."""

    #: A Bolt COMMIT message in its chunk: size 2, an empty struct of signature 0x12, the
    #: end marker.
    COMMIT = b"\x00\x02\xb0\x12\x00\x00"

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._open = threading.Event()
        self._open.set()
        self._down = threading.Event()
        self._closed = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self.port = self._listener.getsockname()[1]
        self._sockets: list[Any] = []
        # Held from `_accept`'s look at `_down` until its connection is listed, so a
        # connection made as the proxy goes down is cut with the rest, not left up.
        self._listing = threading.Lock()
        self._lose = 0
        self.lost = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_commit_answers(self, n: int) -> None:
        """The next `n` commits reach the server and are done there, but their answers
        never come back: the connection is cut instead (a commit whose answer was lost,
        as in a leader that fails right after committing)."""
        self._lose = n

    def hold(self) -> None:
        """Stop passing bytes on (connections stay open)."""
        self._open.clear()

    def release(self) -> None:
        """Pass bytes on again, those held first."""
        self._open.set()

    def down(self) -> None:
        """Cut every open connection (both ends see it closed) and refuse new ones."""
        with self._listing:
            self._down.set()
            cut = list(self._sockets)
        for s in cut:
            _cut(s)

    def up(self) -> None:
        """Accept connections again."""
        self._down.clear()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            with self._listing:
                if self._down.is_set():
                    client.close()  # refused as soon as it is accepted
                    continue
                try:
                    server = socket.create_connection(self._target, timeout=5)
                    server.settimeout(None)
                except OSError:
                    client.close()  # the server itself is gone: so is this connection
                    continue
                self._sockets += [client, server]
            committing = threading.Event()  # this connection's commit answer is to be lost
            for a, b, up in ((client, server, True), (server, client, False)):
                threading.Thread(target=self._pipe, args=(a, b, up, committing),
                                 daemon=True).start()

    def _pipe(self, source: Any, sink: Any, up: bool, committing: Any) -> None:
        try:
            while chunk := source.recv(65536):
                self._open.wait()
                if up and self._lose and self.COMMIT in chunk:
                    self._lose -= 1
                    committing.set()
                elif not up and committing.is_set():
                    self.lost += 1  # the server has committed and answered: cut instead
                    return  # (both ends, below)
                sink.sendall(chunk)
        except OSError:
            pass
        finally:  # one end closed: so is the other, as the peer there sees at once
            for s in (source, sink):
                _cut(s)

    def close(self) -> None:
        self._closed.set()
        self._open.set()
        self._listener.close()
        for s in self._sockets:
            _cut(s)


def _cut(s: Any) -> None:
    """Close socket `s` so that its peer sees it closed now: a close alone, while another
    thread is blocked reading it (its pipe the other way), sends nothing, and the server
    kept that connection, with its open transaction and its locks, until the
    transaction's timeout."""
    with contextlib.suppress(OSError):
        s.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        s.close()
