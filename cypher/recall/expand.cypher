// recall/expand — one hop of the graph around some memories, for association
// (graphmem/read/rank.py spreads activation over it): from each of the sources, its
// ASSOCIATED neighbours (the edge's kind, weight and when it was last strengthened) and
// the memories that mention, or are about, an entity it mentions or is about (the
// entity's name and degree; 'subject' when the memory is about it). With entities (the
// keys of what the query names), also the memories that mention or are about each of
// them. Only memories recall may return (fragments/visible); an entity's degree counts
// what the caller may count (its own scope's memories, a layer's public ones), and an
// entity of more than $hub_limit memories carries nothing.
// With entities, it also says which of the pool (the direct hits) are about what the
// query names.
// Params: $lists: {sources (list of {id, scope}), entities (list of entity keys), pool
//         (list of {id, scope})} (one map: Neo4j keys a plan on each list's size),
//         $vector (or null), $hub_limit, $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until.
// Returns one row: edges (list of {from, from_scope, to, to_scope, kind ('link',
//          'entity', 'subject'), name, weight, since (epoch ms), degree}), named (list of
//          {to, to_scope, entity, name, degree}), named_entities (how many of the entities
//          carry activation), memories (each reached memory once: {memory
//          (fragments/rank_facts), about (keys of what it is about), similarity (to the
//          query: (1 + cos) / 2)}), and about
//          (the keys of the entities each of the pool is about: {id, scope, about}).
CALL () {
  UNWIND $lists.sources AS source
  MATCH (s:Memory {scope: source.scope, id: source.id})
    USING INDEX s:Memory(scope, id)
  CALL (s) {
    MATCH (s)-[r:ASSOCIATED]-(n:Memory)
    WHERE n <> s AND {{visible}}
    RETURN n, 'link' AS kind, r.kind AS name, r.weight AS weight,
           coalesce(r.strengthened_at, r.created_at).epochMillis AS since, null AS degree
    UNION ALL
    MATCH (s)-[:MENTIONS|ABOUT]->(e:Entity)
    WITH DISTINCT s, e,
         coalesce(CASE WHEN e.scope = $scope THEN e.degree ELSE e.public_degree END, 0)
           AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS|ABOUT]-(n:Memory)
    WITH DISTINCT s, e, degree, n
    WHERE n <> s AND {{visible}}
    RETURN n, CASE WHEN EXISTS { (n)-[:ABOUT]->(e) } THEN 'subject' ELSE 'entity' END AS kind,
           coalesce(e.ref, e.key) AS name, null AS weight, null AS since, degree
  }
  RETURN collect({from: s.id, from_scope: s.scope, n: n, kind: kind, name: name,
                  weight: weight, since: since, degree: degree}) AS edges
}
CALL () {
  UNWIND $lists.entities AS key
  MATCH (e:Entity {key: key})
  WITH e, coalesce(CASE WHEN e.scope = $scope THEN e.degree ELSE e.public_degree END, 0)
            AS degree
  WHERE 0 < degree <= $hub_limit
  WITH collect({e: e, degree: degree}) AS found
  CALL (found) {
    UNWIND found AS x
    WITH x.e AS e, x.degree AS degree
    MATCH (e)<-[:MENTIONS|ABOUT]-(n:Memory)
    WITH DISTINCT e, degree, n
    WHERE {{visible}}
    RETURN collect({n: n, entity: e.key, name: coalesce(e.ref, e.key), degree: degree})
             AS named
  }
  RETURN size(found) AS named_entities, named
}
CALL (edges, named) {
  UNWIND [e IN edges | e.n] + [x IN named | x.n] AS m
  WITH DISTINCT m
  RETURN collect({memory: {{rank_facts}}, about: [(m)-[:ABOUT]->(e:Entity) | e.key],
                  similarity: CASE WHEN $vector IS NULL OR m.embedding IS NULL THEN null
                                   ELSE vector.similarity.cosine(m.embedding, $vector)
                              END}) AS memories
}
CALL () {
  UNWIND CASE WHEN size($lists.entities) > 0 THEN $lists.pool ELSE [] END AS p
  MATCH (m:Memory {scope: p.scope, id: p.id})
    USING INDEX m:Memory(scope, id)
  RETURN collect({id: m.id, scope: m.scope,
                  about: [(m)-[:ABOUT]->(e:Entity) WHERE e.key IN $lists.entities | e.key]})
           AS about
}
RETURN [e IN edges | e {.from, .from_scope, to: e.n.id, to_scope: e.n.scope, .kind, .name,
                        .weight, .since, .degree}] AS edges,
       [x IN named | x {to: x.n.id, to_scope: x.n.scope, .entity, .name, .degree}] AS named,
       named_entities, memories, about
