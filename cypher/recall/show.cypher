// recall/show — what recall shows of the memories its answer holds (fragments/facts):
// ranking read only what it ranks by (fragments/rank_facts), so the text, tags and
// metadata are read here, for the answer alone. A memory deleted since it was ranked
// gives no row.
// Params: $lists: {rows (list of {id, scope}): in a map, as Neo4j keys a plan on a
//         list's size}.
// Returns: id, scope, memory (fragments/facts).
UNWIND $lists.rows AS r
MATCH (m:Memory {id: r.id, scope: r.scope})
  USING INDEX SEEK m:Memory(scope, id)
RETURN r.id AS id, r.scope AS scope, {{facts}} AS memory
