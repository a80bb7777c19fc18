// ingest/session_members — the most recent turns of each session, with embeddings, for
// synaptic tagging (a new memory links to similar memories of its session): the turns at
// its last $window places before this batch's, read through the (session, position)
// index, so the cost does not grow with the session. Members being written in this batch
// are left out ($exclude): the writer has them, and not reading their vectors back is
// most of this query's cost.
// Params: $rows: list of {session (Session id), new (this batch's turns in it)},
//         $window (int, turns per session), $exclude (list of memory ids).
// Returns: session, id, created_at, embedding.
UNWIND $rows AS r
MATCH (s:Session {id: r.session})
WITH s, coalesce(s.turns, 0) - $window - r.new AS first
MATCH (m:Memory)
  USING INDEX m:Memory(session, position)
WHERE m.session = s.id AND m.position >= first AND NOT m.id IN $exclude
  AND m.embedding IS NOT NULL
RETURN s.id AS session, m.id AS id, m.created_at AS created_at, m.embedding AS embedding
