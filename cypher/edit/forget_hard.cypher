// edit/forget_hard — forget for good, with every copy of the text graphmem made: the
// memory, the summaries consolidation made from it (source 'consolidation': they quote
// it; a memory someone wrote that a consolidation only confirmed keeps what it says), the
// stored earlier versions of both, and all their edges are deleted, and the next turn's
// context loses it; entities that no memory mentions or is about any more (reflections
// aside) are deleted, and so are the scope's reflections that name one of them. Each
// deleted memory and version leaves a Tombstone with only its id, content hash, scope,
// time and who — never the text — which refuses writing it again (`edit/stamp_tombstones`
// adds the forget keys, computed from the texts this query returns). A forgotten turn's
// neighbours become each other's, and a session it leaves empty goes with it.
// Params: $id, $scope, $now, $by.
// Returns: id, versions (earlier versions deleted), derived (ids of consolidated and
//          reflection memories deleted with it), texts (list of {id, text}: what the
//          tombstones stand for) — no row if missing from the scope.
{{lock_scope}}
MATCH (m:Memory {id: $id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
// (No label on d: with one, a planner on empty statistics read the whole scope for m.)
WITH m, [m] + [(m)<-[:CONSOLIDATED_FROM]-(d)
              WHERE d.scope = $scope AND d.source = 'consolidation' | d] AS roots
CALL (roots) {
  UNWIND roots AS r
  // (Seek by version_of: 2026's planner read the whole scope's index for it.)
  MATCH (v:Memory {version_of: r.id, scope: $scope})
    USING INDEX SEEK v:Memory(version_of)
  // A version edited before versions were refused keeps versions of its own
  // ("<id>@v1@v1"), down its chain of version edges: they go with it.
  OPTIONAL MATCH (v)-[chain:SUPERSEDES*]->(w)
  WHERE w.scope = $scope AND all(e IN chain WHERE e.kind = 'version')
  WITH collect(v) + collect(w) AS found
  UNWIND found AS x
  RETURN collect(DISTINCT x) AS versions
}
CALL (roots, versions) {
  UNWIND roots + versions AS x
  MATCH (x)-[:MENTIONS|ABOUT]->(e:Entity)
  RETURN collect(DISTINCT e) AS entities
}
// A version's text was the memory's once: it is refused as the memory's text is.
FOREACH (r IN roots + versions |
  CREATE (:Tombstone {id: r.id, content_hash: r.content_hash, scope: r.scope,
                      forgotten_at: $now, forgotten_by: $by,
                      derived_from: CASE WHEN r.id = $id THEN null ELSE $id END}))
// A forgotten turn leaves no gap in its conversation: the turns before and after it
// become neighbours, the turn after (which carried its text as context) reads after the
// one before it now and loses its context's vector (made from the forgotten text; recall
// reads the two turns' vectors until `graphmem reembed` makes it again), and a session it
// ended ends at the turn before.
WITH m, roots, versions, entities
CALL (roots) {
  UNWIND roots AS r
  MATCH (r)-[:NEXT]->(x)
  OPTIONAL MATCH (p)-[before:NEXT]->(r)
  FOREACH (q IN CASE WHEN p IS NULL THEN [] ELSE [p] END |
    CREATE (q)-[:NEXT {session: before.session}]->(x))
  SET x.context = {{context_text}}
  REMOVE x.context_embedding
}
CALL (roots) {
  UNWIND roots AS r
  MATCH (s:Session {id: r.session})
  WHERE s.last = r.id
  OPTIONAL MATCH (p)-[:NEXT]->(r)
  SET s.last = p.id
}
// Its sessions, to delete those it leaves empty (a session's name can say what was said).
CALL (roots) {
  UNWIND roots AS r
  MATCH (r)-[:IN_SESSION]->(s:Session)
  RETURN collect(DISTINCT s) AS sessions
}
WITH m.id AS id, roots, versions, entities, sessions,
     [r IN roots WHERE r.id <> $id | r.id] AS derived,
     [x IN roots + versions | x {.id, .text}] AS texts
FOREACH (x IN roots + versions | DETACH DELETE x)
WITH id, versions, derived, texts, entities, sessions
CALL (sessions) {
  UNWIND sessions AS s
  WITH s WHERE NOT EXISTS { (:Memory)-[:IN_SESSION]->(s) }
  DETACH DELETE s
}
CALL (entities) {
  UNWIND entities AS e
  WITH e, {{degree}} AS degree,
       {{public_degree}} AS public_degree,
       // A reflection that names it does not keep it: it goes with it (below).
       COUNT { MATCH (e)<-[:MENTIONS|ABOUT]-(said:Memory)
               WHERE coalesce(said.kind, '') <> 'reflection' RETURN DISTINCT said }
         AS unreflected
  SET e.degree = degree, e.public_degree = public_degree
  WITH e WHERE unreflected = 0
  WITH collect(e) AS orphans
  WITH orphans, [o IN orphans | o.name] AS names
  FOREACH (o IN orphans | DETACH DELETE o)
  RETURN names
}
CALL (names) {
  // The scope's reflections are read only when an entity went (a filter on `names`
  // alone was planned after that read), by (scope, kind): the planner could also take the
  // scope's index (every memory of the scope) or the kind's (every scope's reflections).
  UNWIND CASE WHEN size(names) > 0 THEN [$scope] ELSE [] END AS scope
  MATCH (r:Memory)
    USING INDEX SEEK r:Memory(scope, kind)
  WHERE r.scope = scope AND r.kind = 'reflection'
    AND any(n IN names WHERE r.text CONTAINS n)
  CREATE (:Tombstone {id: r.id, content_hash: r.content_hash, scope: r.scope,
                      forgotten_at: $now, forgotten_by: $by, derived_from: $id})
  WITH r, r {.id, .text} AS said
  DETACH DELETE r
  RETURN collect(said) AS reflections
}
RETURN id, size(versions) AS versions, derived + [r IN reflections | r.id] AS derived,
       texts + reflections AS texts
