// recall/candidates — direct hits: vector and full-text candidates, fused and scored.
// Either list can be off ($vector or $lists.text null). Each list is ranked after the
// filters (scope and visibility, lifecycle, kind, metadata, written in [$since, $until))
// and holds at most $fetch.
// The full-text lists come in ranked ($lists.text, $lists.context: recall/text_lists,
// asked while the query embeds). The vector index is asked for $index_fetch neighbours
// (fragments/vector_neighbours): on 5.26 it cannot filter, and when fewer than $fetch of
// them pass while it returned all it was asked for, the caller asks again with more, and
// at last with $scan: an exact cosine scan of the visible scopes. Neo4j 2026's SEARCH
// filters by scope, visibility, lifecycle, kind and time inside the index (the "search"
// variant), so only metadata filters can leave it short.
// Fusion is reciprocal rank ($alpha null) or alpha * cosine + (1 - alpha) * BM25 / best
// BM25. With $lists.context (hybrid rank fusion only), two more lists join the fusion:
// every candidate, and the turn after each, ranked as it reads in its conversation (see
// "Context" below), so the answer that follows a question's words is found itself.
// Every candidate's cosine is exact: the index's own score for what it found,
// vector.similarity.cosine for what only the full-text index found.
// Score = relevance * ((1 - $temporal) + $temporal * R^0.3) * layer factor * usefulness,
// R the memory's retention at $now from the decay table ($decay: kind -> {h, shape,
// floor}), usefulness what feedback said of it (fragments/usefulness, $use_weight).
// Params: $vector (list of float or null), $scan (bool), $scan_below (int: 0 never
//         scans a scope for being small), $lists: {text, context} (recall/text_lists'
//         lists of {id, scope, bm25}, best first, or null: no list; in one map because
//         Neo4j keys a plan on each list parameter's size, and planning this takes a
//         second: docs/decisions.md, "Lists that vary travel in one map"),
//         $vector_index, $index_fetch (int), $fetch (int, per list),
//         $every_kind (every kind: the search variant filters by it when $kinds is null),
//         $scope, $layers (read-only scopes),
//         $lifecycles, $kinds (list or null), $filters (list of {key, values}),
//         $since, $until (datetime or null),
//         $alpha (float or null), $rrf_k (int), $temporal (0..1), $layer_factor,
//         $decay (map), $now (datetime), $k (int), $hydrate (bool: return memory),
//         $use_weight.
// Returns: id, scope, memory (properties without the embedding; null unless $hydrate),
//          relevance, cosine, bm25,
//          vector_rank, text_rank, retention, layer, score — best first, at most $k —
//          vector_found (vector candidates that passed the filters) and index_returned
//          (neighbours the vector index returned before filtering).
{{candidates}}
RETURN m.id AS id, m.scope AS scope, CASE WHEN $hydrate THEN {{hit}} END AS memory,
       relevance, cosine, bm25,
       vrank AS vector_rank, trank AS text_rank, retention, layer, score, vector_found,
       index_returned
