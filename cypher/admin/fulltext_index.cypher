// admin/fulltext_index — the keyword index: memory text, a turn's context (the turn
// before it and itself, `fragments/turn_context`), plus scope_key so that a keyword search
// can require its scopes inside Lucene (`+scope_key:(...)^0`, which adds nothing to the
// score) instead of filtering after a limit other scopes may fill. Lucene's english
// analyzer stems its words (graphmem/read/keywords.py stems the same way: docs/decisions.md,
// "Words are stemmed"); a scope key, one token, is stemmed alike on both sides.
// The name must match graphmem.graph.schema.FULLTEXT_INDEX.
// Params: none.
CREATE FULLTEXT INDEX memory_words IF NOT EXISTS
FOR (m:Memory) ON EACH [m.text, m.context, m.scope_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
