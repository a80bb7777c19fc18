// ingest/existing — what a batch's rows may already be, in one read inside the write
// transaction (graphmem/write/dedup.py decides, in this order): memories of $scope with
// these ids, the oldest memory of the scope with each content hash (repeated statements
// keep confirming the same one), and each new text's near copies
// (fragments/near_duplicates). Each comes with the Session ids it is in, which
// confirmation arithmetic needs. An id names a memory within its scope: another scope's
// memory of the same id is not seen.
// Params: $scope, $lists: {ids (list of string), hashes (list of content hashes), rows
//         (list of {i (int), kind, embedding (list of float)})} (one map: Neo4j keys a
//         plan on each list's size), $index (vector index name), $fetch, $scan_below,
//         $min_score.
// Returns one row: ids (list of {id, kind, confidence, content_hash, sessions}), same
//          (list of {content_hash, id, confidence, sessions}) and near (list of {i, id,
//          score, confidence, sessions}, best first per i).
CALL () {
  UNWIND $lists.ids AS wanted
  MATCH (m:Memory {id: wanted, scope: $scope})
    USING INDEX SEEK m:Memory(scope, id)
  OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
  WITH m, collect(s.id) AS sessions
  RETURN collect({id: m.id, kind: m.kind, confidence: m.confidence,
                  content_hash: m.content_hash, sessions: sessions}) AS ids
}
CALL () {
  MATCH (m:Memory)
  WHERE m.content_hash IN $lists.hashes AND m.scope = $scope
  WITH m ORDER BY m.created_at, m.id
  WITH m.content_hash AS content_hash, collect(m)[0] AS m
  OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
  WITH content_hash, m, collect(s.id) AS sessions
  RETURN collect({content_hash: content_hash, id: m.id, confidence: m.confidence,
                  sessions: sessions}) AS same
}
CALL () {
  {{near_duplicates}}
  ORDER BY r.i, score DESC
  RETURN collect({i: r.i, id: node.id, score: score, confidence: node.confidence,
                  sessions: sessions}) AS near
}
RETURN ids, same, near
