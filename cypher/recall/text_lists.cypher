// recall/text_lists — the full-text matches of each scope recall searches, one search per
// scope and field: they need no query vector, so recall asks them while it embeds the
// query, and the server's work overlaps the model's (docs/decisions.md, "Full text runs
// while the query embeds"). The Lucene query names its one scope (scope_key), so other
// scopes cannot crowd it.
// A scope of fewer than $small memories gives every match that passes the filters (scope
// and visibility, lifecycle, kind, metadata, written in [$since, $until)) with the
// searched field's text, and the count and total length of that field over every memory
// of the scope that passes them: graphmem/read/keywords.py scores them by the scope's own
// statistics (docs/decisions.md, "A scope's keyword scores are its own"). A bigger scope
// is asked in the full-text index of its own (graph/scope_indexes.py), whose statistics
// are its alone (unless $own_indexes is false: Store.read), and gives Lucene's best
// $fetch that pass, from its best s.limit; when
// fewer pass while Lucene gave all it was asked for, the caller asks again, deeper.
// Params: $text_index, $searches (list of {list: 'text' or 'context', scope, q: the
//         Lucene query, limit}), $small, $fetch, $scope, $layers, $lifecycles, $kinds,
//         $filters, $since, $until, $own_indexes.
// Returns a row per search: list, scope, small, returned (what Lucene gave before
//          filtering), found (list of {id, scope, bm25 (Lucene's), text (small only)},
//          Lucene's best first), docs and chars (small only).
UNWIND $searches AS s
CALL (s) {
  MATCH (n:Memory)
  WHERE n.scope = s.scope
  WITH n LIMIT $small
  RETURN count(n) < $small AS small
}
CALL (s, small) {
  OPTIONAL MATCH (own:Scope {name: s.scope})
  WHERE own.text_index IS NOT NULL AND NOT small AND $own_indexes
  CALL db.index.fulltext.queryNodes(coalesce(own.text_index, $text_index), s.q,
                                    {limit: CASE WHEN small THEN $small ELSE s.limit END})
    YIELD node, score
  WITH collect({n: node, s: score}) AS returned
  CALL (returned, small, s) {
    UNWIND returned AS x
    WITH x.n AS n, x.s AS score
    WHERE {{visible}}
    RETURN collect({id: n.id, scope: n.scope, bm25: score,
                    text: CASE WHEN small THEN n[s.list] END}) AS found
  }
  RETURN size(returned) AS returned, CASE WHEN small THEN found ELSE found[..$fetch] END AS found
}
CALL (s, small) {
  WITH 1 AS on
  WHERE small
  MATCH (n:Memory)
    USING INDEX SEEK n:Memory(scope)  // never a scan of every scope's memories by time
  WHERE n.scope = s.scope AND {{visible}} AND n[s.list] IS NOT NULL
  RETURN count(n) AS docs, sum(size(n[s.list])) AS chars
}
RETURN s.list AS list, s.scope AS scope, small, returned, found,
       CASE WHEN small THEN docs END AS docs, CASE WHEN small THEN chars END AS chars
