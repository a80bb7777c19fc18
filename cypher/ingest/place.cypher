// ingest/place — a batch's memories placed in their conversations, in one statement, in
// this order: into their sessions (fragments/in_sessions); the chains of the sessions
// written with explicit positions rebuilt (fragments/chain_turns: the importers); the
// turns written without a place appended to their sessions' ends
// (fragments/append_turns); then each written turn's context and the next turn's, from
// the chains as they now stand (fragments/turn_context); last, the contexts that need a
// vector (fragments/unembedded_contexts). Each part reads what the parts before it wrote;
// an empty list leaves its part out.
// Params: $scope, $lists: {sessions, chains, arrivals, placed} (what each part reads;
//         one map: Neo4j keys a plan on each list's size).
// Returns: id, context — one row per turn whose context needs a vector.
CALL () {
  {{in_sessions}}
}
CALL () {
  {{chain_turns}}
}
CALL () {
  {{append_turns}}
}
CALL () {
  {{turn_context}}
}
{{unembedded_contexts}}
