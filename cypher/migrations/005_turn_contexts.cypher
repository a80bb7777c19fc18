// migrations/005_turn_contexts — gives the turns of a store written before contexts existed
// their context (as `fragments/turn_context` sets it), in batches; idempotent.
// Params: none.
// Returns: nothing.
MATCH (p:Memory)-[:NEXT]->(x:Memory)
WHERE x.context IS NULL AND {{context_text}} IS NOT NULL
CALL (p, x) {
  SET x.context = {{context_text}}
} IN TRANSACTIONS OF 1000 ROWS
