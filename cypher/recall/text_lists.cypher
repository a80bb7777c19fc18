// recall/text_lists — the full-text lists of recall/candidates, asked on their own: they
// need no query vector, so recall asks them while it embeds the query, and the server's
// work overlaps the model's (docs/decisions.md, "Full text runs while the query embeds").
// Each list holds at most $fetch memories that pass the filters (scope and visibility,
// lifecycle, kind, metadata, written in [$since, $until)), best BM25 first, from the
// index's best $text_fetch: when fewer pass while the index gave all it was asked for
// (archived, private or other kinds crowding the top), the caller asks again, deeper.
// The Lucene queries name their scopes themselves (scope_key), so other scopes cannot
// crowd them.
// Params: $text_index, $lucene: {text (over `text`, or null: no list), context (over
//         `context`, or null)} (one map: a string's length keys a cached plan, as a
//         list's size does), $fetch, $text_fetch, $scope, $layers, $lifecycles, $kinds,
//         $filters, $since, $until.
// Returns one row: text, context (lists of {id, scope, bm25}, best first; null where the
//          query was null) and returned ({text, context}: what the index gave before
//          filtering).
CALL () {
  UNWIND [x IN [{list: 'text', q: $lucene.text}, {list: 'context', q: $lucene.context}]
          WHERE x.q IS NOT NULL] AS x
  CALL (x) {
    CALL db.index.fulltext.queryNodes($text_index, x.q, {limit: $text_fetch})
      YIELD node, score
    RETURN collect({node: node, score: score}) AS hits
  }
  RETURN x.list AS list, size(hits) AS returned, [h IN [h IN hits
    WHERE (h.node.scope = $scope OR (h.node.scope IN $layers AND h.node.visibility = 'public'))
      AND h.node.lifecycle IN $lifecycles AND ($kinds IS NULL OR h.node.kind IN $kinds)
      AND all(f IN $filters WHERE h.node[f.key] IN f.values)
      AND ($since IS NULL OR h.node.created_at >= $since)
      AND ($until IS NULL OR h.node.created_at < $until)][..$fetch]
    | {id: h.node.id, scope: h.node.scope, bm25: h.score}] AS found
}
WITH collect([list, found, returned]) AS lists
RETURN CASE WHEN $lucene.text IS NULL THEN null
            ELSE coalesce([l IN lists WHERE l[0] = 'text'][0][1], []) END AS text,
       CASE WHEN $lucene.context IS NULL THEN null
            ELSE coalesce([l IN lists WHERE l[0] = 'context'][0][1], []) END AS context,
       {text: coalesce([l IN lists WHERE l[0] = 'text'][0][2], 0),
        context: coalesce([l IN lists WHERE l[0] = 'context'][0][2], 0)} AS returned
