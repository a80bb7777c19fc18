"""The memory graph's node and relationship types: the single source of truth for the schema.

neomodel installs the constraints and indexes declared here (`graphmem.graph.schema`); hot
paths do not go through these classes but through the named Cypher in `cypher/`.
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    DateTimeProperty,
    FloatProperty,
    IntegerProperty,
    RelationshipTo,
    StringProperty,
    StructuredNode,
    StructuredRel,
    VectorIndex,
)

from graphmem.base.vocabulary import (
    DEFAULT_DIMENSIONS,
    KINDS,
    LIFECYCLES,
    LINK_KINDS,
    SOURCES,
    TIERS,
    VISIBILITIES,
)


class Associated(StructuredRel):
    """A weighted association between two memories (stored once, undirected in meaning)."""

    weight = FloatProperty(default=0.5)
    kind = StringProperty(choices={k: k for k in LINK_KINDS}, default="manual")
    created_at = DateTimeProperty()
    strengthened_at = DateTimeProperty()
    count = IntegerProperty(default=1)


class Entity(StructuredNode):
    """Something memories of one scope mention: a file, symbol, package, URL, person,
    place, title. Entities are per scope (`key` = the scope's prefix + `ref`, the
    extractor's key), so tenants share no node."""

    key = StringProperty(unique_index=True, required=True)
    ref = StringProperty(index=True)
    scope = StringProperty(index=True)
    name = StringProperty(required=True)
    type = StringProperty(index=True)
    degree = IntegerProperty(default=0)
    public_degree = IntegerProperty(default=0)


class Session(StructuredNode):
    """The conversation or run a memory came from. It keeps its order's end, so a turn
    is appended in O(1) (`fragments/append_turns`): how many positions it has handed out,
    and its last turn."""

    uid = StringProperty(unique_index=True, required=True, db_property="id")
    started_at = DateTimeProperty()
    agent = StringProperty()
    #: Positions handed out: the next turn written into the session takes this one.
    turns = IntegerProperty(default=0)
    #: The id of its last turn (the end of its NEXT chain), which the next turn follows.
    last = StringProperty()


class Memory(StructuredNode):
    """One remembered thing. Never lost: decay and tiers change rank, not existence.

    An id names a memory within its scope: (scope, id) is unique (`schema.install` adds
    that constraint; neomodel declares only single-property ones), so one tenant's ids
    say nothing about another's."""

    uid = StringProperty(index=True, required=True, db_property="id")
    # The full-text index (`schema.FULLTEXT_INDEX`) covers text, context and scope_key;
    # neomodel declares only single-property full-text indexes, so `schema.install`
    # creates it.
    text = StringProperty(required=True)
    #: A turn's context: the turn before it, then its own text (`fragments/turn_context`);
    #: recall matches a turn as it reads in its conversation.
    context = StringProperty()
    #: Its place in the conversation of the session it was written into, from 0: the
    #: record's `metadata.turn` when it gives one (importers), else the next by arrival
    #: (docs/decisions.md, "A session's order is the order of arrival").
    position = IntegerProperty()
    #: The session (its id) whose conversation `position` is a place in: a memory may be
    #: in several sessions (a confirmation adds one), but in one conversation order.
    session = StringProperty()
    kind = StringProperty(index=True, choices={k: k for k in KINDS}, default="episodic")
    scope = StringProperty(index=True, required=True)
    #: One Lucene token naming the scope (`keys.scope_key`): keyword search filters by
    #: scope inside the index, so other scopes cannot crowd a scope's candidates out.
    scope_key = StringProperty()
    visibility = StringProperty(choices={v: v for v in VISIBILITIES}, default="public")
    importance = FloatProperty(default=0.5)
    confidence = FloatProperty(default=0.7)
    stability = FloatProperty(default=1.0)
    access_count = IntegerProperty(default=0)
    created_at = DateTimeProperty(index=True)
    last_accessed = DateTimeProperty()
    valid_from = DateTimeProperty()
    valid_until = DateTimeProperty()
    lifecycle = StringProperty(index=True, choices={v: v for v in LIFECYCLES}, default="active")
    tier = StringProperty(index=True, choices={v: v for v in TIERS}, default="hot")
    content_hash = StringProperty(index=True)
    source = StringProperty(choices={v: v for v in SOURCES}, default="user")
    added_by = StringProperty()
    tags = ArrayProperty(StringProperty())
    confirmation_count = IntegerProperty(default=0)
    #: Feedback (`edit/feedback`): how often agents said it helped, or did not.
    used_count = IntegerProperty(default=0)
    unused_count = IntegerProperty(default=0)
    #: A kept earlier version (`ingest/snapshot`) names the memory it was.
    version_of = StringProperty(index=True)
    summary = StringProperty()
    embedding = ArrayProperty(
        FloatProperty(),
        vector_index=VectorIndex(dimensions=DEFAULT_DIMENSIONS, similarity_function="cosine"),
    )

    mentions = RelationshipTo(Entity, "MENTIONS")
    #: What it is about: its metadata's subject, title or speaker (`extract.subject`).
    about = RelationshipTo(Entity, "ABOUT")
    in_session = RelationshipTo(Session, "IN_SESSION")
    associated = RelationshipTo("Memory", "ASSOCIATED", model=Associated)
    supersedes = RelationshipTo("Memory", "SUPERSEDES")
    consolidated_from = RelationshipTo("Memory", "CONSOLIDATED_FROM")


class Scope(StructuredNode):
    """A scope's own node: writers lock it, so a scope's writes and the switch to its own
    vector index (`graph.scope_indexes`) happen one after the other. Memories name their
    scope by property; no edge leads here."""

    name = StringProperty(unique_index=True, required=True)
    #: Memories written into the scope (counted from the store when the node is made):
    #: decides when it gets its own vector index; a hard forget does not lower it.
    written = IntegerProperty(default=0, index=True)
    #: The label its memories carry once it is getting its own index (`Scope_<hex>`).
    label = StringProperty()
    #: Its own vector index, set once the index is ONLINE and every memory has the label.
    vector_index = StringProperty()
    written_at = DateTimeProperty()


class Receipt(StructuredNode):
    """The receipt of one counted write (an input, a recall's reinforcement, feedback, a
    hard forget), so a writer whose commit answer was lost can ask whether it landed
    (`Store.commit`). One node a receipt, kept for `RECEIPTS_KEPT_S` whatever the traffic,
    and shared by nothing: a write that locks only its memory (feedback) does not queue
    behind the scope's writers."""

    key = StringProperty(unique_index=True, required=True)
    scope = StringProperty(required=True)
    #: When it was written (the server's clock): what `admin/prune_receipts` goes by.
    at = DateTimeProperty(index=True)


class Tombstone(StructuredNode):
    """What a hard forget leaves: who forgot which id when, and its hash; never the text."""

    uid = StringProperty(index=True, required=True, db_property="id")
    content_hash = StringProperty()
    #: The forgotten text's forget key (`write.forgotten`): what a new text is compared by.
    key = StringProperty(index=True)
    scope = StringProperty(index=True)
    forgotten_at = DateTimeProperty()
    forgotten_by = StringProperty()


class Sweep(StructuredNode):
    """One maintenance run and its counts per transition."""

    at = DateTimeProperty(index=True)
    scope = StringProperty()
    seconds = FloatProperty()


SCHEMA_CLASSES = (Memory, Entity, Session, Scope, Receipt, Tombstone, Sweep)
