// recall/associate_pool — association and the final ranking over a pool of direct
// candidates found by another query (recall/exact): recall/associate without its
// candidates step.
// Params: $pool (direct candidates, best first: a list of {id, scope, score, relevance,
//         cosine, bm25, vector_rank, text_rank, retention, layer}), and recall/associate's
//         association parameters ($seeds, $hops, $width, $beta, $answer_k, $vector,
//         $scope, $layers, $lifecycles, $kinds, $filters, $since, $until, $now,
//         $link_tau, $entity_weight, $hub_limit, $hop_decay, $temporal, $layer_factor,
//         $decay, $lists.entities, $mention_weight, $subject_weight, $use_weight, $turns).
// Returns one row, as recall/associate's (vector_found and index_returned null).
WITH $pool AS pool
OPTIONAL CALL (pool) {
  WITH pool
  WHERE size(pool) > 0
  {{association}}
}
RETURN null AS vector_found, null AS index_returned, collect(hit) AS hits
