// recall/associate — associative expansion and the final ranking, in one round trip.
// Activation spreads from the best direct hits ($pool[..$seeds]) for up to two hops, over
// ASSOCIATED edges (weight * exp(-age / $link_tau days)) and shared entities (damped by
// the entity's degree, kept by the writer; entities of more than $hub_limit memories
// carry nothing). Entities are per scope, and a layer's entity counts only its public
// memories, so a path weight tells nothing of memories the caller may not see, times $hop_decay per hop. Scope and visibility are enforced on every
// memory reached. A reached memory earns a bonus of $beta * activation * cos^2 (cos its
// cosine with the query, clipped at 0): being linked to what answers the query counts
// in proportion to being about the query itself, so a hub's unrelated neighbours stay
// down. Direct candidates add the bonus to their score; a memory reached only by
// association scores bonus * temporal factor * layer factor. Each reached memory keeps
// its strongest incoming step (its path).
// Params: $pool (direct candidates, best first: list of {id, scope, score}), $seeds (int),
//         $hops (0, 1 or 2), $width (memories kept per hop), $beta, $k, $vector (list of
//         float or null: no bonus factor without it), $scope, $layers, $lifecycles,
//         $kinds, $filters, $since, $until, $now, $link_tau, $entity_weight, $hub_limit,
//         $hop_decay, $temporal, $layer_factor, $decay.
// Returns, best first and at most $k: id, memory (properties without the embedding),
//          direct (bool), score, activation (the bonus, null if not reached), hop,
//          from, step (the path's last step), prev ({from, step} of a hop-2 path's first
//          step), relevance, cosine, retention, layer (the
//          last four only for memories that are not direct candidates).
CALL () {
  WITH 1 AS on
  WHERE $hops >= 1
  UNWIND $pool[..$seeds] AS f
  MATCH (s:Memory {id: f.id, scope: f.scope})
    USING INDEX s:Memory(scope, id)
  CALL (s, f) {
    MATCH (s)-[r:ASSOCIATED]-(n:Memory)
    RETURN n, f.score * r.weight * exp(-(duration.inSeconds(
             coalesce(r.strengthened_at, r.created_at), $now).seconds / 86400.0) / $link_tau)
           AS act, {kind: 'link', name: r.kind, weight: r.weight} AS step
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WITH e, f, coalesce(CASE WHEN e.scope = $scope THEN e.degree ELSE e.public_degree END,
                        0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(n:Memory)
    RETURN n, f.score * $entity_weight / sqrt(degree - 1) AS act,
           {kind: 'entity', name: coalesce(e.ref, e.key), weight: 1.0 / sqrt(degree - 1)}
           AS step
  }
  WITH n, s, f.id AS from, act * $hop_decay AS act, step
  WHERE n <> s
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
    AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
  WITH n, from, act, step ORDER BY act DESC
  WITH n, collect({from: from, step: step})[0] AS best, sum(act) AS activation
  ORDER BY activation DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: activation, from: best.from, step: best.step}) AS hop1
}
CALL (hop1) {
  WITH hop1
  WHERE $hops >= 2
  UNWIND hop1 AS h
  WITH h.n AS s, {id: h.n.id, scope: h.n.scope, score: h.activation} AS f
  CALL (s, f) {
    MATCH (s)-[r:ASSOCIATED]-(n:Memory)
    RETURN n, f.score * r.weight * exp(-(duration.inSeconds(
             coalesce(r.strengthened_at, r.created_at), $now).seconds / 86400.0) / $link_tau)
           AS act, {kind: 'link', name: r.kind, weight: r.weight} AS step
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WITH e, f, coalesce(CASE WHEN e.scope = $scope THEN e.degree ELSE e.public_degree END,
                        0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(n:Memory)
    RETURN n, f.score * $entity_weight / sqrt(degree - 1) AS act,
           {kind: 'entity', name: coalesce(e.ref, e.key), weight: 1.0 / sqrt(degree - 1)}
           AS step
  }
  WITH n, s, f.id AS from, act * $hop_decay AS act, step
  WHERE n <> s
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
    AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
  WITH n, from, act, step ORDER BY act DESC
  WITH n, collect({from: from, step: step})[0] AS best, sum(act) AS activation
  ORDER BY activation DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: activation, from: best.from, step: best.step}) AS hop2
}
// One entry per reached memory: activation summed over both hops, the hop-1 path kept.
UNWIND [x IN hop1 | x {.*, hop: 1}] + [x IN hop2 | x {.*, hop: 2}] AS r
WITH hop1, r ORDER BY r.hop
WITH hop1, r.n AS n, collect(r)[0] AS first, sum(r.activation) AS activation
WITH hop1, n, first, activation,
     CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN null
          ELSE 2 * vector.similarity.cosine(n.embedding, $vector) - 1 END AS cosine
WITH collect({id: n.id, n: n, hop: first.hop, from: first.from, step: first.step,
              cosine: cosine,
              prev: [y IN hop1 WHERE first.hop = 2 AND y.n.id = first.from |
                    {from: y.from, step: y.step}][0],
              bonus: $beta * activation * CASE WHEN cosine IS NULL THEN 1.0
                                               WHEN cosine < 0 THEN 0.0
                                               ELSE cosine ^ 2 END}) AS reached
CALL (reached) {
  UNWIND $pool AS p
  MATCH (m:Memory {id: p.id, scope: p.scope})
    USING INDEX m:Memory(scope, id)
  WITH p, m, [x IN reached WHERE x.n = m][0] AS x
  RETURN m, true AS direct, p.score + coalesce(x.bonus, 0.0) AS score, x, null AS cosine,
         null AS retention, null AS layer
  UNION ALL
  UNWIND reached AS x
  WITH x WHERE NOT [x.n.scope, x.id] IN [p IN $pool | [p.scope, p.id]]
  WITH x, x.n AS m, $decay[x.n.kind] AS d,
       duration.inSeconds(coalesce(x.n.last_accessed, x.n.created_at), $now).seconds
         / 86400.0 AS age
  WITH x, m,
       {{retention}} AS retention,
       CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
  RETURN m, false AS direct,
         x.bonus * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer AS score, x,
         x.cosine AS cosine, retention, layer
}
WITH m, direct, score, x, cosine, retention, layer
ORDER BY score DESC, m.id
LIMIT $k
RETURN m.id AS id, m {.*, embedding: null} AS memory, direct, score,
       x.bonus AS activation, x.hop AS hop, x.from AS from, x.step AS step,
       x.prev AS prev,
       cosine AS relevance, cosine, retention, layer
