// ingest/session_members — the most recent memories of each session, with embeddings,
// for synaptic tagging (a new memory links to similar memories of its session).
// Members being written in this batch are left out ($exclude): the writer has them, and
// not reading their vectors back is most of this query's cost.
// Params: $sessions (list of Session ids), $window (int, members per session),
//         $exclude (list of memory ids).
// Returns: session, id, created_at, embedding.
UNWIND $sessions AS sid
MATCH (:Session {id: sid})<-[:IN_SESSION]-(m:Memory)
WHERE NOT m.id IN $exclude
WITH sid, m ORDER BY m.created_at DESC, m.id
WITH sid, collect(m)[..$window] AS members
UNWIND members AS m
WITH sid, m
WHERE m.embedding IS NOT NULL
RETURN sid AS session, m.id AS id, m.created_at AS created_at, m.embedding AS embedding
