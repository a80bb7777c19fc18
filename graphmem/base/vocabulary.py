"""The memory graph's vocabulary: kinds, sources, states and the numbers the graph keeps,
as plain constants. The neomodel classes (`graphmem.graph.model`) declare the schema with
them; everything else reads them from here without loading the driver.
"""

#: Dimension of the registered models (all 384); `schema.install` replaces it with the
#: embedder's own.
DEFAULT_DIMENSIONS = 384

KINDS = ("episodic", "semantic", "procedural", "core", "heuristic", "reflection")
SOURCES = ("user", "agent", "import", "consolidation", "reflection")
#: What an agent stores through an agent's door (MCP, the HTTP service, the LangGraph
#: store) without naming a kind or source: a distilled statement, written by an agent
#: (docs/decisions.md, "What an agent stores is a semantic memory by the agent").
AGENT_KIND = "semantic"
AGENT_SOURCE = "agent"
LIFECYCLES = ("active", "shadowed", "archived")
#: What each door also takes for a kind (fact, rule, …), and the kind it stands for.
KIND_ALIASES = {
    "observation": "episodic",
    "event": "episodic",
    "insight": "semantic",
    "fact": "semantic",
    "procedure": "procedural",
    "skill": "procedural",
    "identity": "core",
    "rule": "heuristic",
}
#: Default confidence by provenance: user-stated 0.7, agent-inferred 0.6.
CONFIDENCE_BY_SOURCE = {"user": 0.7, "agent": 0.6, "import": 0.6, "consolidation": 0.6,
                        "reflection": 0.6}

# The defaults and bounds every door shares (the API, the CLI, MCP, the service), so an
# agent gets the same answer whichever it calls.
#: Memories a recall returns, by default and at most.
TOP_K = 10
MAX_TOP_K = 1000
#: A context block (L0 + L1): its memories and token budget, by default and bounds.
CONTEXT_TOP = 20
MAX_CONTEXT_TOP = 200
CONTEXT_TOKENS = 600
MIN_CONTEXT_TOKENS = 50
MAX_CONTEXT_TOKENS = 100_000
#: A session's last turns and a scope's entities listed, by default and at most.
SESSION_TURNS = 20
ENTITIES = 50
MAX_LISTED = 1000
TIERS = ("hot", "cold", "stub")
VISIBILITIES = ("public", "private")
LINK_KINDS = ("synaptic", "co_retrieval", "manual")
#: The input formats `ingest` reads ("auto" tells them apart by content and name).
FORMATS = ("auto", "records", "text", "markdown", "locomo", "chat")
#: An association's weight fades as exp(-age / this many days) since it was last
#: strengthened: recall spreads over it so, and the sweep prunes it so.
LINK_TAU_DAYS = 90.0
#: An entity of more memories than this is a hub: recall spreads nothing through it and
#: the sweep consolidates nothing around it.
HUB_LIMIT = 50
