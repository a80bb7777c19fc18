// recall/text_lists — the full-text lists of recall/candidates, asked on their own: they
// need no query vector, so recall asks them while it embeds the query, and the server's
// work overlaps the model's (docs/decisions.md, "Full text runs while the query embeds").
// Each list holds at most $fetch memories that pass the filters (scope and visibility,
// lifecycle, kind, metadata, written in [$since, $until)), best BM25 first. The Lucene
// queries name their scopes themselves (scope_key), so other scopes cannot crowd them.
// Params: $text_index, $lucene: {text (over `text`, or null: no list), context (over
//         `context`, or null)} (one map: a string's length keys a cached plan, as a
//         list's size does), $fetch, $scope, $layers, $lifecycles, $kinds, $filters,
//         $since, $until.
// Returns one row: text, context (lists of {id, scope, bm25}, best first; null where the
//          query was null).
CALL () {
  UNWIND [x IN [{list: 'text', q: $lucene.text}, {list: 'context', q: $lucene.context}]
          WHERE x.q IS NOT NULL] AS x
  CALL db.index.fulltext.queryNodes($text_index, x.q, {limit: $fetch}) YIELD node, score
  WITH x, node, score
  WHERE (node.scope = $scope OR (node.scope IN $layers AND node.visibility = 'public'))
    AND node.lifecycle IN $lifecycles AND ($kinds IS NULL OR node.kind IN $kinds)
    AND all(f IN $filters WHERE node[f.key] IN f.values)
    AND ($since IS NULL OR node.created_at >= $since)
    AND ($until IS NULL OR node.created_at < $until)
  WITH x, node, score ORDER BY score DESC
  RETURN x.list AS list, collect({id: node.id, scope: node.scope, bm25: score}) AS found
}
WITH collect([list, found]) AS lists
RETURN CASE WHEN $lucene.text IS NULL THEN null
            ELSE coalesce([l IN lists WHERE l[0] = 'text'][0][1], []) END AS text,
       CASE WHEN $lucene.context IS NULL THEN null
            ELSE coalesce([l IN lists WHERE l[0] = 'context'][0][1], []) END AS context
