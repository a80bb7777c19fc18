"""graphmem: perfect-recall, graph-native associative memory for AI agents, on Neo4j.

The public names load on first use (PEP 562), so `graphmem --help` or a module that needs
only `graphmem.base.errors` does not import the store, the driver and the write path."""

from __future__ import annotations

from importlib import import_module

#: Not `typing`'s: importing typing took 11 of the 13 ms the console script spends before
#: `graphmem.launch.main` can catch a Ctrl-C (an interrupt then ends with Python's
#: traceback). Type checkers read this name as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from graphmem.api import GraphMem
    from graphmem.base.errors import GraphmemError
    from graphmem.base.options import RecallOptions
    from graphmem.base.settings import Settings, load_settings
    from graphmem.base.types import (
        DoctorReport,
        EntityOut,
        Hit,
        Link,
        MemoryIn,
        MemoryOut,
        RecallResult,
        WriteReport,
    )
    from graphmem.base.verbs import SweepOptions
    from graphmem.graph.schema import IndexInfo
    from graphmem.lifecycle.edits import FeedbackResult, ForgetResult, HistoryEntry, LinkResult
    from graphmem.lifecycle.maintenance import Overview, SweepReport
    from graphmem.read.context import Context

#: Each public name and the module that defines it.
_PUBLIC = {
    "GraphMem": "graphmem.api",
    "GraphmemError": "graphmem.base.errors",
    "Settings": "graphmem.base.settings",
    "load_settings": "graphmem.base.settings",
    "MemoryIn": "graphmem.base.types",
    "RecallOptions": "graphmem.base.options",
    "Hit": "graphmem.base.types",
    "RecallResult": "graphmem.base.types",
    "WriteReport": "graphmem.base.types",
    "MemoryOut": "graphmem.base.types",
    "EntityOut": "graphmem.base.types",
    "Link": "graphmem.base.types",
    "DoctorReport": "graphmem.base.types",
    "Context": "graphmem.read.context",
    "FeedbackResult": "graphmem.lifecycle.edits",
    "ForgetResult": "graphmem.lifecycle.edits",
    "HistoryEntry": "graphmem.lifecycle.edits",
    "LinkResult": "graphmem.lifecycle.edits",
    "Overview": "graphmem.lifecycle.maintenance",
    "SweepOptions": "graphmem.base.verbs",
    "SweepReport": "graphmem.lifecycle.maintenance",
    "IndexInfo": "graphmem.graph.schema",
}
__all__ = ["Context", "DoctorReport", "EntityOut", "FeedbackResult", "ForgetResult",
           "GraphMem", "GraphmemError", "HistoryEntry", "Hit", "IndexInfo", "Link",
           "LinkResult", "MemoryIn", "MemoryOut", "Overview", "RecallOptions",
           "RecallResult", "Settings", "SweepOptions", "SweepReport", "WriteReport",
           "load_settings"]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib import metadata

        return metadata.version("graphmem")  # pyproject.toml holds the one number
    if name not in _PUBLIC:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    value = getattr(import_module(_PUBLIC[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*__all__, "__version__"]
