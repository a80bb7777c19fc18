"""One exception tree: user errors exit 1, environment errors exit 2."""

from __future__ import annotations

from pydantic import ValidationError


class GraphmemError(Exception):
    """Base of every error graphmem raises on purpose; `exit_code` is what the CLI returns."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        """The message and hint on one line, as the CLI prints it."""
        return f"{self.message} ({self.hint})" if self.hint else self.message


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


class EnvironmentProblem(GraphmemError):
    """Neo4j unreachable or misconfigured, a missing tool or index: exit 2."""

    exit_code = 2


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


def invalid(e: ValidationError, *, source: str | None = None, line: int | None = None,
            where: str | None = None, flags: bool = False) -> InputError:
    """The one translation of a pydantic error into an InputError naming its first
    problem: the field path (under `where`, or as a CLI flag with `flags`) and the reason."""
    err = e.errors()[0]
    path = ".".join(str(p) for p in err["loc"]) or None
    if flags and path:
        path = "--" + path.replace("_", "-").replace(".", "-")
    if where:
        path = f"{where}.{path}" if path else where
    message = {"missing": "missing", "extra_forbidden": "unknown field"}.get(
        err["type"], err["msg"])
    return InputError(message.removeprefix("Value error, "), source=source, line=line,
                      field=path)
