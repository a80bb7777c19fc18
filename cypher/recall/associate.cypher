// recall/associate — associative expansion in one round trip: up to two hops of
// spreading activation from the best direct hits ($seeds), over ASSOCIATED edges
// (weight * exp(-age / $link_tau days)) and shared entities (damped by the entity's
// degree, kept by the writer; entities of more than $hub_limit memories carry nothing),
// times $hop_decay per hop. Scope and visibility are enforced on every memory reached.
// Each reached memory keeps its strongest incoming step (its path) and, when it is not
// already a direct hit, is scored like one: activation * temporal factor * layer factor.
// Params: $seeds (list of {id, activation}), $direct (ids of all direct hits), $hops
//         (1 or 2), $width (memories kept per hop), $scope, $layers, $lifecycles, $kinds,
//         $filters, $now, $link_tau, $entity_weight, $hub_limit, $hop_decay, $vector,
//         $temporal, $layer_factor, $decay.
// Returns: id, hop, activation, from, step, direct (bool), memory, relevance, cosine,
//          retention, layer, score (null for direct hits: the caller has theirs).
CALL () {
  UNWIND $seeds AS f
  MATCH (s:Memory {id: f.id})
  CALL (s, f) {
    MATCH (s)-[r:ASSOCIATED]-(n:Memory)
    RETURN n, f.activation * r.weight * exp(-(duration.inSeconds(
             coalesce(r.strengthened_at, r.created_at), $now).seconds / 86400.0) / $link_tau)
           AS act, {kind: 'link', name: r.kind, weight: r.weight} AS step
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WITH e, f, coalesce(e.degree, 0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(n:Memory)
    RETURN n, f.activation * $entity_weight / sqrt(degree - 1) AS act,
           {kind: 'entity', name: e.key, weight: 1.0 / sqrt(degree - 1)} AS step
  }
  WITH n, f.id AS from, act * $hop_decay AS act, step
  WHERE NOT n.id IN [x IN $seeds | x.id]
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
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
  WITH hop1, h.n AS s, {id: h.n.id, activation: h.activation} AS f
  CALL (s, f) {
    MATCH (s)-[r:ASSOCIATED]-(n:Memory)
    RETURN n, f.activation * r.weight * exp(-(duration.inSeconds(
             coalesce(r.strengthened_at, r.created_at), $now).seconds / 86400.0) / $link_tau)
           AS act, {kind: 'link', name: r.kind, weight: r.weight} AS step
    UNION ALL
    MATCH (s)-[:MENTIONS]->(e:Entity)
    WITH e, f, coalesce(e.degree, 0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS]-(n:Memory)
    RETURN n, f.activation * $entity_weight / sqrt(degree - 1) AS act,
           {kind: 'entity', name: e.key, weight: 1.0 / sqrt(degree - 1)} AS step
  }
  WITH hop1, n, f.id AS from, act * $hop_decay AS act, step
  WHERE NOT n.id IN [x IN $seeds | x.id] AND NOT n IN [x IN hop1 | x.n]
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
  WITH n, from, act, step ORDER BY act DESC
  WITH n, collect({from: from, step: step})[0] AS best, sum(act) AS activation
  ORDER BY activation DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: activation, from: best.from, step: best.step}) AS hop2
}
UNWIND [x IN hop1 | x {.*, hop: 1}] + [x IN hop2 | x {.*, hop: 2}] AS r
WITH r, r.n AS m, r.n.id IN $direct AS direct
WITH r, m, direct,
     CASE WHEN direct OR $vector IS NULL OR m.embedding IS NULL THEN null
          ELSE 2 * vector.similarity.cosine(m.embedding, $vector) - 1 END AS cosine,
     $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH r, m, direct, cosine,
     CASE WHEN d IS NULL OR d.h IS NULL THEN 1.0
          ELSE d.floor + (1 - d.floor) * exp(-log(2) * (
            (CASE WHEN age < 0 THEN 0.0 ELSE age END)
            / (d.h * coalesce(m.stability, 1.0) * (0.5 + coalesce(m.importance, 0.5))
               * (0.5 + coalesce(m.confidence, 0.5)))) ^ d.shape)
     END AS retention,
     CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
RETURN m.id AS id, r.hop AS hop, r.activation AS activation, r.from AS from, r.step AS step,
       direct,
       CASE WHEN direct THEN null ELSE m {.*, embedding: null} END AS memory,
       cosine AS relevance, cosine, retention, layer,
       CASE WHEN direct THEN null
            ELSE r.activation * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer
       END AS score
