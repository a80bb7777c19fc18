"""Progress bars for long work: drawn on stderr for a person at a terminal, silent otherwise."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

Advance = Callable[[int], None]


def _ignore(_: int) -> None:
    return None


@contextmanager
def bar(label: str, total: int, enabled: bool) -> Iterator[Advance]:
    """Yield `advance(n)`; a transient rich bar on stderr when `enabled`, a no-op otherwise."""
    if not enabled:
        yield _ignore
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    columns = (f"[progress.description]{label}", BarColumn(), MofNCompleteColumn(),
               TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)
