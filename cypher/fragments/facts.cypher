// fragments/facts — what recall shows of memory m and what its ranking reads
// (graphmem/read/rank.py): the hit's fields, the decay inputs (created_at, last_accessed,
// stability, importance, confidence), feedback (used_count, unused_count) and the
// entities it is about (`about`: keys). Never the embedding (1.5 kB) or the context.
// Metadata comes as [key, value] pairs of its `meta.<key>` properties. Needs m.
m {.id, .text, .kind, .scope, .tier, .created_at, .tags, .position, .last_accessed,
   .stability, .importance, .confidence, .used_count, .unused_count,
   meta: [k IN keys(m) WHERE k STARTS WITH 'meta.' | [k, m[k]]],
   about: [(m)-[:ABOUT]->(e:Entity) | e.key]}
