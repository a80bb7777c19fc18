// recall/associate — direct candidates, associative expansion and the final ranking, in
// one round trip. The candidates are recall/candidates' (fragments/candidates: its
// parameters, with $k the size of the pool association may reorder); when the 5.26
// vector index left their list short (fewer than $fetch passed, none of them scanned,
// and the index had more), association is skipped and the caller asks again, deeper.
// Activation spreads from the best direct hits (the pool's first $seeds) for up to two
// hops, over ASSOCIATED edges (weight * exp(-age / $link_tau days)) and shared entities
// (damped by the entity's degree, kept by the writer; entities of more than $hub_limit
// memories carry nothing); a memory reaches an entity it mentions or is about (ABOUT:
// its subject), and through it every memory that mentions it or is about it, so the
// passage that names B reaches the passage about B. Entities are per scope, and a
// layer's entity counts only its public memories, so a path weight tells nothing of
// memories the caller may not see. Activation halves ($hop_decay) per hop. Scope and
// visibility are enforced on every memory reached. A reached memory earns a bonus of
// $beta * activation * cos^2 (cos its cosine with the query, clipped at 0): being linked
// to what answers the query counts in proportion to being about the query itself, so a
// hub's unrelated neighbours stay down. Direct candidates add the bonus to their score;
// a memory reached only by association scores bonus * temporal factor * layer factor.
// Each reached memory keeps its strongest incoming step (its path).
// The query's own entities ($lists.entities, keys in the caller's and the layers' entity
// spaces) reach the memories that mention them or are about them, earning
// $mention_weight * activation (no cos^2: the query named them), and lift
// (x (1 + $subject_weight)) the memories about them (a title, a turn's speaker).
// Params: recall/candidates' (with $lists and $k), and $seeds
//         (int), $hops (0, 1 or 2), $width (memories kept per hop), $beta, $answer_k,
//         $vector (list of float or null: no bonus factor without it), $scope, $layers,
//         $lifecycles, $kinds, $filters, $since, $until, $now, $link_tau,
//         $entity_weight, $hub_limit, $hop_decay, $temporal, $layer_factor, $decay,
//         $lists.entities (list of keys), $mention_weight, $subject_weight, $use_weight
//         (feedback's factor on what association alone brings in, as candidates apply it
//         to theirs), $turns (bool: return each ranked turn's neighbours).
// Returns one row: vector_found and index_returned (as recall/candidates) and hits —
//          best first and at most $answer_k, each {id, memory (fragments/hit), direct
//          (bool), candidate (a direct hit's candidate row: {id, scope, score, relevance,
//          cosine, bm25, vector_rank, text_rank, retention, layer}), score,
//          activation (the bonus, null if not reached), hop, from, step (the path's last
//          step), prev_step ({from, step} of a hop-2 path's first step), relevance,
//          cosine, retention, layer (the last four only for memories that are not direct
//          candidates), prev and next (fragments/neighbours; null without $turns)}; no
//          hits when the vector list was short.
{{candidates}}
WITH collect({id: m.id, scope: m.scope, score: score, relevance: relevance, cosine: cosine,
              bm25: bm25, vector_rank: vrank, text_rank: trank, retention: retention,
              layer: layer}) AS pool,
     max(vector_found) AS vector_found, max(index_returned) AS index_returned
// Association only on a complete list: a short one is asked again, deeper (the caller).
OPTIONAL CALL (pool, vector_found, index_returned) {
  WITH pool
  WHERE size(pool) > 0
    AND ($vector IS NULL OR vector_found >= $fetch OR index_returned < $index_fetch)
  {{association}}
}
RETURN vector_found, index_returned, collect(hit) AS hits
