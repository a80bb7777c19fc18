// fragments/hit — what a recall hit shows of memory m, and nothing more: reading m {.*}
// would load the embedding (1.5 kB per memory) and the turn's context only to drop them.
// Metadata comes as [key, value] pairs of its `meta.<key>` properties (keys() reads no
// values). Written where a query says {{hit}}; needs m.
m {.id, .text, .kind, .scope, .tier, .created_at, .tags, .position,
   meta: [k IN keys(m) WHERE k STARTS WITH 'meta.' | [k, m[k]]]}
