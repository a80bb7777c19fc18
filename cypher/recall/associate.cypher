// recall/associate — associative expansion and the final ranking, in one round trip.
// Activation spreads from the best direct hits ($pool[..$seeds]) for up to two hops, over
// ASSOCIATED edges (weight * exp(-age / $link_tau days)) and shared entities (damped by
// the entity's degree, kept by the writer; entities of more than $hub_limit memories
// carry nothing); a memory reaches an entity it mentions or is about (ABOUT: its
// subject), and through it every memory that mentions it or is about it, so the passage
// that names B reaches the passage about B. Entities are per scope, and a layer's entity
// counts only its public memories, so a path weight tells nothing of memories the caller
// may not see. Activation halves ($hop_decay) per hop. Scope and visibility are enforced
// on every memory reached. A reached memory earns a bonus of $beta * activation * cos^2
// (cos its cosine with the query, clipped at 0): being linked to what answers the query
// counts in proportion to being about the query itself, so a hub's unrelated neighbours
// stay down. Direct candidates add the bonus to their score; a memory reached only by
// association scores bonus * temporal factor * layer factor. Each reached memory keeps
// its strongest incoming step (its path).
// The query's own entities ($query_entities, keys in the caller's and the layers' entity
// spaces) reach the memories that mention them or are about them, earning
// $mention_weight * activation (no cos^2: the query named them), and lift
// (x (1 + $subject_weight)) the memories about them (a title, a turn's speaker).
// Params: $pool (direct candidates, best first: list of {id, scope, score}), $seeds (int),
//         $hops (0, 1 or 2), $width (memories kept per hop), $beta, $k, $vector (list of
//         float or null: no bonus factor without it), $scope, $layers, $lifecycles,
//         $kinds, $filters, $since, $until, $now, $link_tau, $entity_weight, $hub_limit,
//         $hop_decay, $temporal, $layer_factor, $decay, $query_entities (list of keys),
//         $mention_weight, $subject_weight, $use_weight (feedback's factor on what
//         association alone brings in, as candidates apply it to theirs), $turns (bool:
//         return each ranked turn's neighbours).
// Returns, best first and at most $k: id, memory (fragments/hit), direct (bool), score,
//          activation (the bonus, null if not reached), hop, from, step (the path's last
//          step), prev_step ({from, step} of a hop-2 path's first step), relevance,
//          cosine, retention, layer (the last four only for memories that are not direct
//          candidates), prev and next (fragments/neighbours; null without $turns).
// The query's own entities: the memories that mention one or are about it are reached
// directly, each entity's share (1 / the number it names) spread evenly over its memories
// (1 / degree), as a personalised PageRank's first step, so a rare name counts and a hub
// cannot flood.
CALL () {
  UNWIND $query_entities AS key
  MATCH (e:Entity {key: key})
  WITH e, coalesce(CASE WHEN e.scope = $scope THEN e.degree ELSE e.public_degree END, 0)
          AS degree
  WHERE 0 < degree <= $hub_limit
  WITH collect({e: e, degree: degree}) AS named
  UNWIND named AS x
  WITH x.e AS e, x.degree AS degree, size(named) AS share
  MATCH (e)<-[:MENTIONS|ABOUT]-(n:Memory)
  WITH DISTINCT e, degree, share, n
  WHERE (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
    AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
  WITH n, e, 1.0 / degree / share AS act ORDER BY act DESC
  WITH n, collect(coalesce(e.ref, e.key))[0] AS name, sum(act) AS act
  ORDER BY act DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: act, name: name}) AS named
}
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
    MATCH (s)-[:MENTIONS|ABOUT]->(e:Entity)
    WITH DISTINCT e, f, coalesce(CASE WHEN e.scope = $scope THEN e.degree
                                      ELSE e.public_degree END, 0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS|ABOUT]-(n:Memory)
    WITH DISTINCT e, f, degree, n
    RETURN n, f.score * $entity_weight / sqrt(degree - 1) AS act,
           {kind: CASE WHEN EXISTS { (n)-[:ABOUT]->(e) } THEN 'subject' ELSE 'entity' END,
            name: coalesce(e.ref, e.key), weight: 1.0 / sqrt(degree - 1)} AS step
  }
  WITH n, s, f.id AS from, act * $hop_decay AS act, step
  WHERE n <> s
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
    AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
  WITH n, from, act, step ORDER BY act DESC
  WITH n, collect({from: from, step: step})[0] AS best, sum(act) AS activation,
       sum(CASE WHEN step.kind = 'subject' THEN act ELSE 0.0 END) AS subject
  ORDER BY activation DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: activation, subject: subject, from: best.from,
                  step: best.step}) AS hop1
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
    MATCH (s)-[:MENTIONS|ABOUT]->(e:Entity)
    WITH DISTINCT e, f, coalesce(CASE WHEN e.scope = $scope THEN e.degree
                                      ELSE e.public_degree END, 0) AS degree
    WHERE 1 < degree <= $hub_limit
    MATCH (e)<-[:MENTIONS|ABOUT]-(n:Memory)
    WITH DISTINCT e, f, degree, n
    RETURN n, f.score * $entity_weight / sqrt(degree - 1) AS act,
           {kind: CASE WHEN EXISTS { (n)-[:ABOUT]->(e) } THEN 'subject' ELSE 'entity' END,
            name: coalesce(e.ref, e.key), weight: 1.0 / sqrt(degree - 1)} AS step
  }
  WITH n, s, f.id AS from, act * $hop_decay AS act, step
  WHERE n <> s
    AND (n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
    AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
    AND all(x IN $filters WHERE n[x.key] IN x.values)
    AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
  WITH n, from, act, step ORDER BY act DESC
  WITH n, collect({from: from, step: step})[0] AS best, sum(act) AS activation,
       sum(CASE WHEN step.kind = 'subject' THEN act ELSE 0.0 END) AS subject
  ORDER BY activation DESC, n.id
  LIMIT $width
  RETURN collect({n: n, activation: activation, subject: subject, from: best.from,
                  step: best.step}) AS hop2
}
// One entry per reached memory: activation summed over both hops, the shortest path kept
// (a memory the query names is reached in "hop 0"). Spread from the hits counts in
// proportion to cos^2, but not where it arrives at what a hit names (the passage about B,
// reached from one that mentions B: a bridge rarely shares the question's words); what
// the query itself names counts as it is.
UNWIND [x IN named | {n: x.n, activation: 0.0, subject: 0.0, named: x.activation, hop: 0,
                      from: null, step: {kind: 'query', name: x.name, weight: x.activation}}]
       + [x IN hop1 | x {.*, named: 0.0, hop: 1}] + [x IN hop2 | x {.*, named: 0.0, hop: 2}]
       AS r
WITH hop1, r ORDER BY r.hop
WITH hop1, r.n AS n, collect(r)[0] AS first, sum(r.activation) AS activation,
     sum(r.subject) AS subject, sum(r.named) AS named
WITH hop1, n, first, activation, subject, named,
     CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN null
          ELSE 2 * vector.similarity.cosine(n.embedding, $vector) - 1 END AS cosine
WITH collect({id: n.id, n: n, hop: first.hop, from: first.from, step: first.step,
              cosine: cosine,
              prev: [y IN hop1 WHERE first.hop = 2 AND y.n.id = first.from |
                    {from: y.from, step: y.step}][0],
              bonus: $beta * (activation - subject) * CASE WHEN cosine IS NULL THEN 1.0
                                                           WHEN cosine < 0 THEN 0.0
                                                           ELSE cosine ^ 2 END
                     + $beta * subject + $mention_weight * named}) AS reached
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
         x.bonus * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer
           * {{usefulness}} AS score, x,
         x.cosine AS cosine, retention, layer
}
// A memory about what the query names (its title, a turn's speaker) rises by a factor.
WITH m, direct, x, cosine, retention, layer,
     score * CASE WHEN size($query_entities) > 0
                   AND EXISTS { (m)-[:ABOUT]->(e:Entity) WHERE e.key IN $query_entities }
                  THEN 1 + $subject_weight ELSE 1.0 END AS score
ORDER BY score DESC, m.id
LIMIT $k
// With $turns, each ranked turn brings its conversation neighbours (the caller re-ranks
// with them: conversation order), in this same round trip.
OPTIONAL CALL (m) {
  WITH m AS t
  WHERE $turns AND t.`meta.turn` IS NOT NULL
  {{neighbours}}
  RETURN prev, next
}
RETURN m.id AS id, {{hit}} AS memory, direct, score,
       x.bonus AS activation, x.hop AS hop, x.from AS from, x.step AS step,
       x.prev AS prev_step,
       cosine AS relevance, cosine, retention, layer, prev, next
