// fragments/chain_turns — conversation order as graph, for sessions written with explicit
// positions (`metadata.turn`: the importers): the session's turns (memories placed in
// its conversation, earlier versions aside) are chained in order of position by
// (:Memory)-[:NEXT {session}]->(:Memory). The chain is rebuilt whole, so a re-ingest or
// a turn written in between leaves exactly one edge between neighbours, and the session
// keeps its end (`turns`, `last`) for the turns appended by arrival after it
// (fragments/append_turns). A session lives in one scope, so a chain never crosses scopes.
// Reads $lists.chains (list of Session ids).
UNWIND $lists.chains AS sid
MATCH (s:Session {id: sid})
// Locks the session before its turns are read: appends to it wait for this rebuild.
SET s.turns = coalesce(s.turns, 0)
WITH s
CALL (s) {
  MATCH (m:Memory)-[:IN_SESSION]->(s)
  WHERE m.session = s.id AND m.position IS NOT NULL AND m.version_of IS NULL
  WITH m ORDER BY m.position, m.created_at, m.id
  RETURN collect(m) AS turns
}
CALL (s, turns) {
  UNWIND turns AS m
  MATCH (m)-[old:NEXT {session: s.id}]->()
  DELETE old
}
SET s.turns = CASE WHEN size(turns) = 0 OR s.turns > last(turns).position THEN s.turns
                   ELSE last(turns).position + 1 END,
    s.last = CASE WHEN size(turns) = 0 THEN s.last ELSE last(turns).id END
WITH s, turns
CALL (s, turns) {
  UNWIND range(0, size(turns) - 2) AS i
  WITH s, turns[i] AS a, turns[i + 1] AS b
  CREATE (a)-[:NEXT {session: s.id}]->(b)
}
