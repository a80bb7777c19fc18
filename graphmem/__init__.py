"""graphmem: perfect-recall, graph-native associative memory for AI agents, on Neo4j."""

from importlib.metadata import version

from graphmem.api import GraphMem
from graphmem.errors import GraphmemError
from graphmem.settings import Settings, load_settings
from graphmem.types import Hit, MemoryIn, RecallResult, WriteReport

__all__ = [
    "GraphMem",
    "GraphmemError",
    "Hit",
    "MemoryIn",
    "RecallResult",
    "Settings",
    "WriteReport",
    "load_settings",
]
__version__ = version("graphmem")  # pyproject.toml holds the one number
