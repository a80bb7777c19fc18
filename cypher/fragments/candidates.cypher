// fragments/candidates — recall's direct hits, fused and scored, best first, at most $k:
// rows of m, vrank, trank, bm25, cosine, relevance, retention, layer, score,
// vector_found and index_returned, as recall/candidates describes them (its parameters,
// too). Written where recall/candidates and recall/associate say {{candidates}}.
// A scope (with its layers) of fewer than $scan_below memories is scanned at once: exact,
// cheaper than the index, and in this one round trip however crowded the index is.
CALL () {
  CALL () {
    WITH 1 AS on
    WHERE $vector IS NOT NULL AND NOT $scan AND $scan_below > 0
    MATCH (m:Memory)
    WHERE m.scope IN [$scope] + $layers
    WITH m LIMIT $scan_below
    RETURN count(m) AS seen
  }
  RETURN $scan OR ($vector IS NOT NULL AND $scan_below > 0 AND seen < $scan_below) AS scan
}
CALL (scan) {
  WITH 1 AS on
  WHERE $vector IS NOT NULL AND NOT scan
  {{vector_neighbours}}
  WITH node, score ORDER BY score DESC
  WITH collect({m: node, s: score}) AS returned
  WITH size(returned) AS returned, [x IN returned
    WHERE (x.m.scope = $scope OR (x.m.scope IN $layers AND x.m.visibility = 'public'))
      AND x.m.lifecycle IN $lifecycles AND ($kinds IS NULL OR x.m.kind IN $kinds)
      AND all(f IN $filters WHERE x.m[f.key] IN f.values)
      AND ($since IS NULL OR x.m.created_at >= $since)
      AND ($until IS NULL OR x.m.created_at < $until)][..$fetch] AS found
  // One row even when nothing passed, so that index_returned reaches the caller.
  UNWIND CASE WHEN size(found) = 0 THEN [null] ELSE range(0, size(found) - 1) END AS i
  RETURN found[i].m AS m, i + 1 AS vrank, found[i].s AS vscore, null AS trank, null AS bm25,
         null AS cbm25, returned
  UNION ALL
  WITH 1 AS on
  WHERE $vector IS NOT NULL AND scan
  MATCH (node:Memory)
  WHERE (node.scope = $scope OR (node.scope IN $layers AND node.visibility = 'public'))
    AND node.embedding IS NOT NULL
    AND node.lifecycle IN $lifecycles AND ($kinds IS NULL OR node.kind IN $kinds)
    AND all(f IN $filters WHERE node[f.key] IN f.values)
    AND ($since IS NULL OR node.created_at >= $since)
    AND ($until IS NULL OR node.created_at < $until)
  WITH node, vector.similarity.cosine(node.embedding, $vector) AS score
  ORDER BY score DESC
  LIMIT $fetch
  WITH collect({m: node, s: score}) AS found
  UNWIND range(0, size(found) - 1) AS i
  RETURN found[i].m AS m, i + 1 AS vrank, found[i].s AS vscore, null AS trank, null AS bm25,
         null AS cbm25, null AS returned
  UNION ALL
  UNWIND range(0, size(coalesce($lists.text, [])) - 1) AS i
  WITH i, $lists.text[i] AS t
  MATCH (node:Memory {scope: t.scope, id: t.id})
    USING INDEX node:Memory(scope, id)
  RETURN node AS m, null AS vrank, null AS vscore, i + 1 AS trank, t.bm25 AS bm25,
         null AS cbm25, null AS returned
  UNION ALL
  UNWIND coalesce($lists.context, []) AS t
  MATCH (node:Memory {scope: t.scope, id: t.id})
    USING INDEX node:Memory(scope, id)
  RETURN node AS m, null AS vrank, null AS vscore, null AS trank, null AS bm25,
         t.bm25 AS cbm25, null AS returned
}
WITH m, min(vrank) AS vrank, max(vscore) AS vscore, min(trank) AS trank, max(bm25) AS bm25,
     max(cbm25) AS cbm25, max(returned) AS returned
WITH collect(CASE WHEN m IS NOT NULL
                  THEN {m: m, vrank: vrank, vscore: vscore, trank: trank, bm25: bm25,
                        cbm25: cbm25} END)
       AS cands,
     max(bm25) AS best,
     coalesce(max(vrank), 0) AS vector_found, coalesce(max(returned), 0) AS index_returned
// Context: each candidate, and the turn after each of the first two lists' candidates, is
// also ranked as it reads in its conversation — by BM25 over `context` (the turn before
// and itself; its own text when it has none) and by the cosine of the query with the
// mean of its and the previous turn's vectors, (c + c_prev) / sqrt(2 + 2 cos(x, prev)).
CALL (cands) {
  WITH cands WHERE $lists.context IS NULL
  RETURN cands AS pool
  UNION ALL
  WITH cands WHERE $lists.context IS NOT NULL
  UNWIND cands AS c
  WITH c, c.m AS cm
  OPTIONAL MATCH (cm)-[:NEXT]->(n:Memory)
    WHERE (c.vrank IS NOT NULL OR c.trank IS NOT NULL)
      AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
      AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
      AND all(f IN $filters WHERE n[f.key] IN f.values)
      AND ($since IS NULL OR n.created_at >= $since)
      AND ($until IS NULL OR n.created_at < $until)
  WITH collect(DISTINCT c) AS cs, collect(DISTINCT n) AS ns
  WITH cs + [n IN ns WHERE NOT n IN [c IN cs | c.m] | {m: n}] AS xs
  UNWIND xs AS x
  WITH x, x.m AS xm
  CALL (xm) {
    OPTIONAL MATCH (p:Memory)-[:NEXT]->(xm)
      WHERE p.embedding IS NOT NULL
        AND (p.scope = $scope OR (p.scope IN $layers AND p.visibility = 'public'))
    RETURN p LIMIT 1
  }
  WITH x, xm, p,
       CASE WHEN x.vscore IS NOT NULL THEN 2 * x.vscore - 1
            WHEN xm.embedding IS NULL THEN null
            ELSE 2 * vector.similarity.cosine(xm.embedding, $vector) - 1 END AS cx
  WITH x,
       CASE WHEN cx IS NULL OR p IS NULL THEN cx
            ELSE (cx + 2 * vector.similarity.cosine(p.embedding, $vector) - 1)
                 / sqrt(4 * vector.similarity.cosine(p.embedding, xm.embedding) + 1e-9)
       END AS ccos,
       CASE WHEN xm.context IS NULL THEN x.bm25 ELSE x.cbm25 END AS cbm
  ORDER BY coalesce(ccos, -2.0) DESC
  WITH collect({x: x, ccos: ccos, cbm: cbm}) AS rows
  UNWIND range(0, size(rows) - 1) AS i
  WITH rows[i] AS r, CASE WHEN rows[i].ccos IS NULL OR i >= $fetch THEN null
                          ELSE i + 1 END AS cvrank
  ORDER BY coalesce(r.cbm, -1.0) DESC
  WITH collect({x: r.x, cbm: r.cbm, cvrank: cvrank}) AS rows
  UNWIND range(0, size(rows) - 1) AS i
  WITH rows[i] AS r, i
  WITH r.x AS x, r.cvrank AS cvrank,
       CASE WHEN r.cbm IS NULL OR i >= $fetch THEN null ELSE i + 1 END AS ctrank
  RETURN collect(x {.*, cvrank: cvrank, ctrank: ctrank}) AS pool
}
UNWIND pool AS c
WITH c.m AS m, c.vrank AS vrank, c.trank AS trank, c.bm25 AS bm25, c.cvrank AS cvrank,
     c.ctrank AS ctrank, best, vector_found, index_returned,
     CASE WHEN c.vscore IS NOT NULL THEN 2 * c.vscore - 1
          WHEN $vector IS NULL OR c.m.embedding IS NULL THEN null
          ELSE 2 * vector.similarity.cosine(c.m.embedding, $vector) - 1 END AS cosine
WITH m, vrank, trank, bm25, cosine, vector_found, index_returned,
     CASE
       WHEN $lists.text IS NULL THEN cosine
       WHEN $vector IS NULL THEN coalesce(bm25, 0.0) / best
       WHEN $alpha IS NULL AND $lists.context IS NOT NULL THEN
         (coalesce(1.0 / ($rrf_k + vrank), 0.0) + coalesce(1.0 / ($rrf_k + trank), 0.0)
          + coalesce(1.0 / ($rrf_k + cvrank), 0.0) + coalesce(1.0 / ($rrf_k + ctrank), 0.0))
         * ($rrf_k + 1) / 4.0
       WHEN $alpha IS NULL THEN
         (coalesce(1.0 / ($rrf_k + vrank), 0.0) + coalesce(1.0 / ($rrf_k + trank), 0.0))
         * ($rrf_k + 1) / 2.0
       ELSE $alpha * coalesce(cosine, 0.0) + (1 - $alpha) * coalesce(bm25 / best, 0.0)
     END AS relevance,
     $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m, vrank, trank, bm25, cosine, relevance, vector_found, index_returned,
     {{retention}} AS retention,
     CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
WITH m, vrank, trank, bm25, cosine, relevance, retention, layer, vector_found,
     index_returned,
     relevance * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer * {{usefulness}}
       AS score
ORDER BY score DESC, m.id
LIMIT $k
