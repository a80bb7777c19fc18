// recall/expand — the graph around some memories, for association
// (graphmem/read/rank.py spreads activation over it): from each of the sources, one step
// of association (fragments/associated); then, with $two_hops, the step from every
// memory the first reached, when they are at most $width (rank.py would spread from all
// of them; more, and the caller asks again for the widest $width). With entities (the
// keys of what the query names), also the memories that mention or are about each of
// them (an entity of more than $hub_limit memories carries nothing), and which of the
// pool (the direct hits) are about them. With $turns, every memory here and of the pool
// with its neighbours in its session (fragments/neighbours).
// Params: $lists: {sources (list of {id, scope}), entities (list of entity keys to reach
//         memories by), named (the keys the query names: what a reached memory is about,
//         of those), pool (list of {id, scope})} (one map: Neo4j keys a plan on each
//         list's size),
//         $two_hops, $width, $vector and $semantic (as recall/retrieve), $hub_limit,
//         $turns, $scope, $layers, $lifecycles, $kinds, $filters, $since, $until.
// Returns one row: edges and, with the second step taken (second), second_edges (lists
//          of {from, from_scope, to, to_scope, kind ('link', 'entity', 'subject'), name,
//          weight, since (epoch ms), degree}), named (list of {to, to_scope, entity,
//          name, degree}), named_entities (how many of the entities carry activation),
//          memories (each reached memory once: {memory (fragments/rank_facts), about
//          (of $lists.named, the keys it is about), before, after, similarity (to the query:
//          (1 + cos) / 2)}), and pool ({id, scope, about (the keys of the entities it is
//          about, of those named), before, after}).
CALL () {
  UNWIND $lists.sources AS source
  MATCH (s:Memory {scope: source.scope, id: source.id})
    USING INDEX SEEK s:Memory(scope, id)
  CALL (s) {
    {{associated}}
  }
  RETURN collect({from: s.id, from_scope: s.scope, n: n, kind: kind, name: name,
                  weight: weight, since: since, degree: degree}) AS edges
}
CALL (edges) {
  UNWIND edges AS e
  WITH DISTINCT e.n AS n
  RETURN collect(n) AS first
}
WITH edges, first, $two_hops AND size(first) <= $width AS second
CALL (first, second) {
  UNWIND CASE WHEN second THEN first ELSE [] END AS s
  CALL (s) {
    {{associated}}
  }
  RETURN collect({from: s.id, from_scope: s.scope, n: n, kind: kind, name: name,
                  weight: weight, since: since, degree: degree}) AS second_edges
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
CALL (edges, second_edges, named) {
  UNWIND [e IN edges + second_edges | e.n] + [x IN named | x.n] AS m
  WITH DISTINCT m
  OPTIONAL CALL (m) {
    {{neighbours}}
  }
  // What it is about, of what the query names (a memory's every edge is read for it:
  // none when the query names nothing).
  RETURN collect({memory: {{rank_facts}}, about: CASE WHEN size($lists.named) = 0 THEN []
                    ELSE [(m)-[:ABOUT]->(e:Entity) WHERE e.key IN $lists.named | e.key] END,
                  before: before, after: after,
                  similarity: CASE WHEN NOT $semantic OR m.embedding IS NULL THEN null
                                   ELSE vector.similarity.cosine(m.embedding, $vector)
                              END}) AS memories
}
CALL () {
  UNWIND CASE WHEN size($lists.entities) > 0 OR $turns THEN $lists.pool ELSE [] END AS p
  MATCH (m:Memory {scope: p.scope, id: p.id})
    USING INDEX SEEK m:Memory(scope, id)
  OPTIONAL CALL (m) {
    {{neighbours}}
  }
  RETURN collect({id: m.id, scope: m.scope, before: before, after: after,
                  about: [(m)-[:ABOUT]->(e:Entity) WHERE e.key IN $lists.entities | e.key]})
           AS pool
}
RETURN [e IN edges | e {.from, .from_scope, to: e.n.id, to_scope: e.n.scope, .kind, .name,
                        .weight, .since, .degree}] AS edges, second,
       [e IN second_edges | e {.from, .from_scope, to: e.n.id, to_scope: e.n.scope, .kind,
                               .name, .weight, .since, .degree}] AS second_edges,
       [x IN named | x {to: x.n.id, to_scope: x.n.scope, .entity, .name, .degree}] AS named,
       named_entities, memories, pool
