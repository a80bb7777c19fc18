// fragments/associated — one step of association from memory s: its ASSOCIATED
// neighbours (the edge's kind, weight and when it was last strengthened), and the
// memories that mention, or are about, an entity s mentions or is about (the entity's
// name and degree; 'subject' when that memory is about it). Only memories recall may
// return (fragments/visible); an entity's degree counts what the caller may count (its
// own scope's memories, a layer's public ones), and an entity of more than $hub_limit
// memories carries nothing. Written inside `CALL (s) { ... }` where a query says
// {{associated}}; returns n, kind, name, weight, since (epoch ms), degree.
CALL (s) {
  // Only s's own edges: with the filters beside it, the planner would read every
  // memory of the scope and ask each for an edge to s (a cost that grows with the scope).
  MATCH (s)-[r:ASSOCIATED]-(n)
  RETURN r, n
}
WITH s, r, n
WHERE n:Memory AND n <> s AND {{visible}}
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
