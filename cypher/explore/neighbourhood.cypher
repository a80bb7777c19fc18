// explore/neighbourhood — a memory and everything one step away: linked memories,
// entities, its session, what it supersedes or was consolidated from. For Browser:
//   :param id => 'the-memory-id'
// Params: $id.
// Returns: m, paths (drawn as a graph).
MATCH (m:Memory {id: $id})
OPTIONAL MATCH p = (m)-[:ASSOCIATED|MENTIONS|IN_SESSION|SUPERSEDES|CONSOLIDATED_FROM]-()
RETURN m, collect(p)[..100] AS paths
