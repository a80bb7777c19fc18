"""Bookmarks across requests (docs/service.md, "Scale out"): those a request brings, which
its reads wait for, and those of the writes it made, which its answer names."""

from __future__ import annotations

from contextvars import ContextVar

import neo4j

#: Where a client gives bookmarks back (the service's header), and the server's words
#: for bookmarks that are none of its database's.
BOOKMARK_HEADER = "Graphmem-Bookmark"
BOOKMARK_CODES = frozenset({"Neo.ClientError.Transaction.InvalidBookmark",
                            "Neo.ClientError.Transaction.InvalidBookmarkMixture"})
#: Bookmarks a request brings from another replica (the service's Graphmem-Bookmark
#: header, docs/service.md "Scale out"): its sessions wait until the server has the writes
#: they name.
CAUSAL: ContextVar[tuple[str, ...]] = ContextVar("graphmem_causal", default=())
#: The bookmarks of the writes one request made, where a door collects them (the
#: service sets a list per request, and names what it holds in its answer): every write
#: session adds its own when it commits.
MADE: ContextVar[list[str] | None] = ContextVar("graphmem_made", default=None)


def note_made(session: neo4j.Session) -> None:
    """Add what `session` just committed to the request's MADE bookmarks, if collected."""
    made = MADE.get()
    if made is not None:
        made.extend(session.last_bookmarks().raw_values)
