// recall/retrieve — the memories recall ranks, with the facts it ranks them by (rank.py
// decides; this finds). Lists of what the caller may see (fragments/visible), best first:
// - vector: the index's $index_fetch nearest (fragments/vector_neighbours) that pass; on
//   5.26 other scopes may fill them, so when fewer than $fetch pass while the index gave
//   all it was asked for, the caller asks again deeper, at last with $scan (an exact
//   scan). A scope with its layers of fewer than $scan_below memories is scanned at once.
// - text, context: recall/text_lists' (asked while the query embedded), in $lists.
// - next (with $lists.context): the turn after each vector and text candidate.
// Per memory: what ranking reads of it (fragments/rank_facts), its session neighbours
// with $turns (fragments/neighbours), its places in the lists ({list, rank, score}: the
// similarity, or BM25), its similarity to the query, whether it has a context, and with
// $lists.context its context vector's similarity to the query, or (a context with no
// vector) the turn before's similarities to the query and to it. Similarities are exact,
// Neo4j's (1 + cos) / 2 (graphmem.read.fusion.cosine); ties go by scope, id.
// Params: $vector, $semantic (false in keyword recall, whose $vector is NO_VECTOR), $scan,
//   $scan_below, $vector_index, $index_fetch, $fetch, $lists: {text, context} (lists of
//   {id, scope, bm25} or null), $scope, $layers, $lifecycles, $kinds, $filters, $since,
//   $until, $turns, $own_indexes, $legacy. Returns one row: vector_found, index_returned
//   (neighbours the index gave before filtering; 0 after a scan), candidates (list of
//   {memory, ranks, similarity, has_context, before, after, context_similarity,
//   prev_query_similarity, prev_similarity}), models (fragments/scope_models).
CALL () {
  WITH 1 AS on
  WHERE $semantic AND NOT $scan AND $scan_below > 0
  MATCH (n:Memory)
  WHERE n.scope IN [$scope] + $layers
  WITH n LIMIT $scan_below
  RETURN count(n) AS seen
}
WITH $scan OR ($semantic AND $scan_below > 0 AND seen < $scan_below) AS scan
CALL (scan) {
  CALL (scan) {
    WITH 1 AS on
    WHERE $semantic AND NOT scan
    {{vector_neighbours}}
    WITH scan, node, score ORDER BY score DESC
    WITH scan, collect({n: node, s: score}) AS returned  // no row when the branch is off
    // The index's neighbours are approximate, its scores quantized: of its $index_fetch,
    // the $fetch most similar by the exact similarity are kept (docs/decisions.md,
    // "Similarities are exact"). A vector in a map slowed a query 100-fold: none is.
    CALL (returned) {
      UNWIND returned AS x
      WITH x.n AS n
      WHERE {{visible}}
      WITH n, vector.similarity.cosine(n.embedding, $vector) AS s
      ORDER BY s DESC, n.scope, n.id
      RETURN collect({n: n, s: s})[..$fetch] AS found
    }
    RETURN size(returned) AS returned, found
    UNION ALL
    WITH 1 AS on
    WHERE $semantic AND scan
    MATCH (n:Memory)
      USING INDEX SEEK n:Memory(scope)  // never a scan of every scope's memories by time
    WHERE n.scope IN [$scope] + $layers AND {{visible}} AND n.embedding IS NOT NULL
    WITH n, vector.similarity.cosine(n.embedding, $vector) AS s
    ORDER BY s DESC, n.scope, n.id
    LIMIT $fetch
    RETURN null AS returned, collect({n: n, s: s}) AS found
  }
  RETURN coalesce(max(returned), 0) AS returned, coalesce(collect(found)[0], []) AS found
}
CALL () {
  UNWIND [l IN [['text', $lists.text], ['context', $lists.context]] WHERE l[1] IS NOT NULL]
    AS l
  UNWIND range(0, size(l[1]) - 1) AS i
  WITH l[0] AS list, i, l[1][i] AS t
  MATCH (n:Memory {scope: t.scope, id: t.id})
    USING INDEX SEEK n:Memory(scope, id)
  RETURN collect({n: n, list: list, rank: i + 1, score: t.bm25}) AS texts
}
WITH returned, size(found) AS vector_found,
     [i IN range(0, size(found) - 1) |
      {n: found[i].n, list: 'vector', rank: i + 1, score: found[i].s}] + texts AS entries
CALL (entries) {
  UNWIND [e IN entries WHERE $lists.context IS NOT NULL AND e.list IN ['vector', 'text']
          | e.n] AS c
  WITH DISTINCT c
  // No label on a hop's far end (NEXT joins memories only): with one, a plan made on an
  // empty database sought the whole scope for each candidate (docs/decisions.md,
  // "A hop from a memory names no label").
  MATCH (c)-[:NEXT]->(n)
  WHERE {{visible}}
  RETURN collect(DISTINCT {n: n, list: 'next', rank: null, score: null}) AS next
}
CALL (entries, next) {
  UNWIND entries + next AS e
  WITH e.n AS m, collect(e {.list, .rank, .score}) AS ranks
  // A context with no vector of its own reads as the two turns' mean (fusion.mean_cosine).
  CALL (m) {
    OPTIONAL MATCH (n)-[:NEXT]->(m)
    WHERE $lists.context IS NOT NULL AND m.context IS NOT NULL
      AND m.context_embedding IS NULL AND n.embedding IS NOT NULL AND {{in_scope}}
    RETURN n.embedding AS pe
    LIMIT 1
  }
  OPTIONAL CALL (m) {
    {{neighbours}}
  }
  // Each vector read once (it spans many records: twice cost ~2 ms a recall at 100k).
  WITH m, ranks, pe, before, after,
       [r IN ranks WHERE r.list = 'vector'][0].score AS similarity
  WITH m, ranks, pe, before, after, similarity,
       CASE WHEN pe IS NOT NULL OR similarity IS NULL THEN m.embedding END AS me
  RETURN collect({
    memory: {{rank_facts}}, ranks: ranks, has_context: m.context IS NOT NULL,
    before: before, after: after,
    similarity: CASE WHEN similarity IS NOT NULL THEN similarity
                     WHEN NOT $semantic OR me IS NULL THEN null
                     ELSE vector.similarity.cosine(me, $vector) END,
    context_similarity: CASE WHEN $lists.context IS NULL OR NOT $semantic THEN null
                             ELSE vector.similarity.cosine(m.context_embedding, $vector) END,
    prev_query_similarity: CASE WHEN pe IS NULL OR NOT $semantic THEN null
                                ELSE vector.similarity.cosine(pe, $vector) END,
    prev_similarity: CASE WHEN pe IS NULL OR me IS NULL THEN null
                          ELSE vector.similarity.cosine(pe, me) END
  }) AS candidates
}
{{scope_models}}
RETURN vector_found, returned AS index_returned, candidates, models
