// fragments/rank_facts — what ranking reads of memory m (graphmem/read/rank.py): its
// identity, kind, the decay inputs (`created` and `accessed`: created_at and
// last_accessed in epoch milliseconds, which the driver reads ten times faster than a
// date; stability, importance, confidence), feedback (used_count, unused_count), its session
// (fusion's session list) and its place in it. Only
// these: reading a text or metadata for every candidate would cost more than the search
// (recall/show reads them for the answer alone). Needs m.
m {.id, .scope, .kind, created: m.created_at.epochMillis,
   accessed: m.last_accessed.epochMillis, .stability, .importance, .confidence,
   .used_count, .unused_count, .session, .position}
