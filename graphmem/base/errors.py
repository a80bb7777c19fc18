"""One exception tree, and how every door says it: user errors exit 1 (HTTP 4xx), environment
errors exit 2 (HTTP 503). The CLI, the service and MCP all read `exit_code`, `status` and
`said()` from here, so one error reads the same at every door."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError


class GraphmemError(Exception):
    """Base of every error graphmem raises on purpose; `exit_code` is what the CLI returns."""

    exit_code = 1
    #: The HTTP status the service answers it with.
    status = 400

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint on one line, as the CLI prints it."""
        return f"{self.message} ({self.hint})" if self.hint else self.message

    def said(self) -> str:
        """The line a remote caller (an HTTP client, an MCP agent) reads."""
        return self.one_line()


def whole_text(values: str | Sequence[str], field: str) -> None:
    """Refuse text that is not Unicode (a lone surrogate: JSON's \\ud800 escapes, or
    argv bytes that are not UTF-8) before it reaches the model or the driver, which
    fail on it with no word of where."""
    for value in [values] if isinstance(values, str) else values:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("holds a lone surrogate (bytes that are not UTF-8), which is "
                             "not Unicode text", field=field) from None


class InputError(GraphmemError):
    """Bad input from the caller: a record, a flag, a file. Says where (source, line, field)."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        where = ":".join(str(p) for p in (source, line) if p is not None)
        if field:
            where = f"{where}: field {field!r}" if where else f"field {field!r}"
        super().__init__(f"{where}: {message}" if where else message)
        self.source, self.line, self.field = source, line, field
        self.reason = message


class NotFoundError(GraphmemError):
    """An id or name that does not exist."""

    status = 404


class Forbidden(GraphmemError):
    """The caller's grant does not allow it: a read-only token writing, another scope."""

    status = 403


class EnvironmentProblem(GraphmemError):
    """Neo4j unreachable or misconfigured, a missing tool or index: exit 2."""

    exit_code = 2
    status = 503

    def said(self) -> str:
        """A remote caller cannot fix the server: say so before what went wrong."""
        return f"memory store unavailable: {self.one_line()}"


class ConfigError(EnvironmentProblem):
    """A setting that cannot be used as given."""


class Neo4jUnavailable(EnvironmentProblem):
    """The server does not answer, refuses the credentials, or lacks the database."""


class Neo4jBusy(EnvironmentProblem):
    """The server gave up on a transaction (a deadlock, a timeout) after the retries."""


class Neo4jRefused(EnvironmentProblem):
    """The server failed a query for a reason graphmem does not map (a version without a
    feature, a server-side error): exit 2, with the server's error code."""


class SchemaMismatch(EnvironmentProblem):
    """The graph's indexes do not fit this configuration (e.g. vector dimension)."""


class ServerError(EnvironmentProblem):
    """The local Neo4j server could not be assembled, started or stopped."""


def invalid(e: ValidationError | Sequence[Any], *, source: str | None = None,
            line: int | None = None, where: str | None = None,
            flags: bool = False) -> InputError:
    """The one translation of a pydantic error (or a web framework's list of them) into an
    InputError naming its first problem: the field path (under `where`, or as a CLI flag
    with `flags`) and the reason."""
    err = (e.errors() if isinstance(e, ValidationError) else e)[0]
    # A web framework puts where in the request it looked first ("body", "query"); a
    # field may be called so too (recall's `query`): only the first is where.
    loc = list(err["loc"])
    if not isinstance(e, ValidationError) and loc and loc[0] in ("body", "query", "path",
                                                                  "header", "cookie"):
        loc = loc[1:]
    path = ".".join(str(p) for p in loc) or None
    if flags and path:
        path = "--" + path.replace("_", "-").replace(".", "-")
    if where:
        path = f"{where}.{path}" if path else where
    message = {"missing": "missing", "extra_forbidden": "unknown field"}.get(
        err["type"], err["msg"])
    return InputError(message.removeprefix("Value error, "), source=source, line=line,
                      field=path)
