// ingest/session_members — the most recent turns of each session, with embeddings, for
// synaptic tagging (a new memory links to similar memories of its session): the turns at
// the last $window places before this batch's, read through the (session, position)
// index, so the cost does not grow with the session. It runs before the batch writes
// anything, so that the scope's lock is not held while the embeddings are read (most of
// a write's time): where the session's turns will end once the batch is placed is worked
// out from what it holds now — explicit positions ($top, fragments/chain_turns) and the
// memories that arrive without a place (fragments/append_turns; one that has a place keeps
// it). Members being written in this batch are left out ($exclude): the writer has them.
// A member whose `id|content hash` the writer already holds ($rows' `known`: it read that
// vector before) comes back without its embedding, which is the costly part to read.
// Params: $scope, $rows: list of {session (Session id), new (this batch's written turns in
//         it), top (1 + its highest explicit position, or null), arrivals (ids placed by
//         arrival), known (list of "id|content hash")}, $window (int, turns per session),
//         $exclude (list of memory ids).
// Returns: session, id, created_us (created_at in microseconds since the epoch, UTC: a
//          datetime crossing Bolt cost ~65 µs of the driver's Python, most of this read
//          for a long session), hash (content hash), embedding (null when known).
UNWIND $rows AS r
MATCH (s:Session {id: r.session})
WITH s, r, coalesce(s.turns, 0) AS turns
WITH s, r, CASE WHEN r.top IS NULL OR turns >= r.top THEN turns ELSE r.top END
  + size([id IN r.arrivals WHERE NOT EXISTS {
      MATCH (x:Memory {scope: $scope, id: id}) WHERE x.position IS NOT NULL }]) AS ends
WITH s, r, ends - $window - r.new AS first
MATCH (m:Memory)
  USING INDEX SEEK m:Memory(session, position)
WHERE m.session = s.id AND m.position >= first AND NOT m.id IN $exclude
  AND m.embedding IS NOT NULL
// epochMillis rounds down, before 1970 too; the microsecond field holds the rest.
RETURN s.id AS session, m.id AS id,
       m.created_at.epochMillis * 1000 + m.created_at.microsecond % 1000 AS created_us,
       m.content_hash AS hash,
       CASE WHEN m.id + '|' + coalesce(m.content_hash, '') IN r.known THEN null
            ELSE m.embedding END AS embedding
