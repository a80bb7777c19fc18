// admin/set_turn_contexts — gives the turns of a store written before contexts existed
// their context (as `ingest/turn_context` sets it), in batches; idempotent.
// Params: none.
// Returns: nothing.
MATCH (p:Memory)-[:NEXT]->(x:Memory)
WHERE x.context IS NULL AND (p.visibility = 'public' OR x.visibility = 'private')
CALL (p, x) {
  SET x.context = p.text + '\n' + x.text
} IN TRANSACTIONS OF 1000 ROWS
