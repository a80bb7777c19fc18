"""What the connected server's release line offers graphmem, read from its Bolt agent
string when the store connects (`Store.features`)."""

from __future__ import annotations

import re

from pydantic import BaseModel


class Features(BaseModel):
    """What the connected server's release line offers graphmem."""

    version: str | None = None
    line: str | None = None  # "5.26" (LTS) or a calendar year such as "2026"
    cypher_25: bool = False  # Cypher 25 (calendar releases from 2025.06)
    vector_search_filters: bool = False  # SEARCH with in-index filtering (from 2026.01)

    @property
    def enables(self) -> list[str]:
        """What this line turns on, in words (for `doctor`)."""
        return [text for on, text in (
            (self.cypher_25, "Cypher 25"),
            (self.vector_search_filters, "vector SEARCH with in-index filters"),
        ) if on]


def features(agent: str | None) -> Features:
    """The features of a server from its Bolt agent string ("Neo4j/2026.08.1")."""
    found = re.fullmatch(r"Neo4j/(\d+)\.(\d+)(?:\.\d+)?.*", agent or "")
    if not found:
        return Features(version=agent)
    major, minor = int(found.group(1)), int(found.group(2))
    calendar = major >= 2025
    return Features(
        version=agent.split("/", 1)[1] if agent else None,
        line=str(major) if calendar else f"{major}.{minor}",
        cypher_25=calendar and (major, minor) >= (2025, 6),
        vector_search_filters=(major, minor) >= (2026, 1),
    )
