// recall/expand — one hop of spreading activation from a frontier of memories: over
// ASSOCIATED edges (weight * exp(-age / $link_tau days)) and through shared entities
// (damped by the entity's degree, kept by the writer, so hubs cannot flood; entities
// mentioned by more than $hub_limit memories carry nothing). Scope and visibility are
// enforced on every memory reached. Each reached memory keeps its strongest incoming
// step, for the path shown to the caller.
// Params: $frontier (list of {id, activation}), $seen (ids already spread from),
//         $scope, $layers, $lifecycles, $kinds (list or null), $filters, $now,
//         $link_tau (days), $entity_weight, $hub_limit (int), $hop_decay, $width (int).
// Returns: id, activation, from, step ({kind: 'link'|'entity', name, weight}).
UNWIND $frontier AS f
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
WITH f, n, act, step
WHERE NOT n.id IN $seen
  AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
  AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
  AND all(x IN $filters WHERE n[x.key] IN x.values)
WITH n, f.id AS from, act * $hop_decay AS act, step
ORDER BY act DESC
WITH n, collect({from: from, act: act, step: step})[0] AS best, sum(act) AS activation
RETURN n.id AS id, activation, best.from AS from, best.step AS step
ORDER BY activation DESC, id
LIMIT $width
