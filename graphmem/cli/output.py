"""What every command shares: results on stdout (JSON or a table), diagnostics on stderr,
and one place that turns errors into a one-line message and an exit code."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ParamSpec, TextIO, TypeVar

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console
from typer.core import TyperOption

if TYPE_CHECKING:
    from graphmem.api import GraphMem
    from graphmem.base.types import WriteReport

from graphmem.base.errors import GraphmemError, InputError, invalid
from graphmem.base.gates import shown


def _flag_type(self: TyperOption, ctx: typer.Context) -> str | None:
    """A flag takes no value, so its help shows none (Typer's rich help printed `<bool>`
    beside every flag, as though `--json <bool>` were wanted)."""
    return None if self.is_flag else _value_type(self, ctx)


_value_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]

P = ParamSpec("P")
R = TypeVar("R")

@dataclass(frozen=True)
class Call:
    """What one command reads and writes of its process, as a value: its environment and
    its output streams. A command run in its own process has the process's; the warm
    process answers each handed-off call with its caller's (cli/warm.py), so calls side
    by side share nothing, and nothing of the process is swapped for them."""

    env: Mapping[str, str]
    out: TextIO
    err: TextIO


#: The call a command is answering, in its own context (None: this process's own).
_CALL: ContextVar[Call | None] = ContextVar("graphmem_call", default=None)


def call() -> Call:
    """The call this command answers: the one `answering` names, else this process's."""
    return _CALL.get() or Call(os.environ, sys.stdout, sys.stderr)


@contextlib.contextmanager
def answering(given: Call | None) -> Iterator[None]:
    """Run what this block runs as call `given` (None: as this process)."""
    token = _CALL.set(given)
    try:
        yield
    finally:
        _CALL.reset(token)


class CallLog(logging.Handler):
    """graphmem's log records (a wait for Neo4j, said once) on the stderr of the call
    they happen in, as the command's other diagnostics."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            call().err.write(self.format(record) + "\n")
        except Exception:
            self.handleError(record)


def open_memory(scope: str | None = None, now: str | None = None, *,
                embeds: bool = False) -> GraphMem:
    """A GraphMem from the environment, with the command's overrides. A command that
    `embeds` loads the embedder on a thread while the rest of graphmem is imported and
    Neo4j is reached: a CLI call pays for the longer of the two, not both."""
    from graphmem.base.settings import load_settings, valid_scope
    from graphmem.embedding import chosen

    settings = load_settings(scope=valid_scope(scope, "--scope"), environ=call().env)
    embedder = chosen.from_settings(settings)
    if embeds:
        # A failure here is the command's to report, when it embeds: not this thread's.
        threading.Thread(target=_quietly(embedder.warm), name="warm-embedder").start()
    from graphmem.api import GraphMem
    from graphmem.cli import warm_stores

    # In the warm process: its connection for these settings, kept across calls.
    return GraphMem(settings, embedder=embedder, now=parse_now(now),
                    store=warm_stores.shared_store(settings))


def _quietly(work: Callable[[], object]) -> Callable[[], None]:
    """`work`, with any exception dropped."""
    def run() -> None:
        with contextlib.suppress(Exception):
            work()
    return run


#: Columns of results written to a file or a pipe (rich would use 80, which folds the
#: benchmarks' tables cell by cell); COLUMNS still decides where it is set.
PIPED_WIDTH = 160


def out() -> Console:
    """A console on the call's stdout, for results."""
    c = call()
    piped = not c.out.isatty() and "COLUMNS" not in c.env
    return Console(file=c.out, highlight=False, soft_wrap=True, _environ=c.env,
                   width=PIPED_WIDTH if piped else None)


def err() -> Console:
    """A console on the call's stderr, for diagnostics and progress."""
    c = call()
    return Console(file=c.err, highlight=False, soft_wrap=True, _environ=c.env)


def say(message: str) -> None:
    """A diagnostic line on stderr."""
    err().print(message, markup=False)


def emit(result: BaseModel | dict[str, Any] | list[Any], as_json: bool,
         render: Callable[[Console], None]) -> None:
    """Print `result` as JSON when asked, else let `render` draw it for a person."""
    if as_json:
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        call().out.write(json.dumps(data, ensure_ascii=False, default=str) + "\n")
    else:
        render(out())


def parse_now(value: str | None, flag: str = "--now") -> datetime | None:
    """Parse a date-time flag such as `--now` (ISO-8601; naive means UTC)."""
    if value is None:
        return None
    from graphmem.base.clock import DATE_RANGE, as_utc

    try:
        return as_utc(datetime.fromisoformat(value))
    except ValueError:
        raise InputError(f"{shown(value)} is not an ISO-8601 date-time {DATE_RANGE}",
                         field=flag) from None


def handled(fn: Callable[P, R]) -> Callable[P, R]:
    """Run a command so that graphmem errors print one line on stderr and set the exit code."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except GraphmemError as e:
            err().print(f"error: {e.one_line()}", markup=False, highlight=False)
            raise typer.Exit(e.exit_code) from None
        except ValidationError as e:  # options a command built from its flags
            bad = invalid(e, flags=True)
            err().print(f"error: {bad.field}: {bad.reason}", markup=False, highlight=False)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:  # the one line and exit code the warm path gives too
            from graphmem.base.handoff import INTERRUPTED, INTERRUPTED_CODE

            err().print(INTERRUPTED.strip(), markup=False, highlight=False)
            raise typer.Exit(INTERRUPTED_CODE) from None

    return wrapper


#: Records from which a write draws a progress bar (for a person at a terminal).
PROGRESS_MIN_RECORDS = 200
def show_progress(records: int) -> bool:
    """A bar only for a person watching a long batch; piped runs stay quiet."""
    return call().err.isatty() and (records == 0 or records >= PROGRESS_MIN_RECORDS)


def finish_write(report: WriteReport, as_json: bool) -> None:
    """Print a write report; exit 1 when any record was rejected."""

    def render(c) -> None:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(report.counts.items()))
        c.print(f"{counts} in scope {report.scope} ({report.entities} entities, "
                f"{report.synaptic_links} new synaptic links)")
        for o in report.outcomes:
            if o.reason or len(report.outcomes) <= 50:
                where = ":".join(str(p) for p in (o.source, o.line) if p is not None)
                detail = f"  {where}{f' {o.field}' if o.field else ''}: {o.reason}" if (
                    o.reason) else ""
                c.print(f"  {o.status:<9} {o.id or '-'}{detail}", markup=False)

    emit(report, as_json, render)
    rejected = report.rejected
    if rejected:
        say(f"error: {len(rejected)} of {len(report.outcomes)} records rejected")
        raise typer.Exit(1)
