// fragments/facts — what recall shows of memory m, and what ranking reads of it
// (fragments/rank_facts): the hit's fields, with metadata as [key, value] pairs of its
// `meta.<key>` properties and times as epoch milliseconds (`created`, `accessed`).
// Never the embedding (1.5 kB) or the context. Needs m.
m {.id, .text, .kind, .scope, .tier, .tags, .position,
   created: m.created_at.epochMillis, accessed: m.last_accessed.epochMillis,
   .stability, .importance, .confidence, .used_count, .unused_count,
   meta: [k IN keys(m) WHERE k STARTS WITH 'meta.' | [k, m[k]]]}
