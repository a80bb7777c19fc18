// fragments/association — spreading activation from a pool of direct candidates and
// the final ranking (recall/associate describes it, and its parameters): rows of `hit`,
// best first, at most $answer_k. Needs `pool` (direct candidates, best first: a list of
// {id, scope, score, relevance, cosine, bm25, vector_rank, text_rank, retention, layer}).
// Written where recall/associate and recall/associate_pool say {{association}}.
// The query's own entities: the memories that mention one or are about it are reached
// directly, each entity's share (1 / the number it names) spread evenly over its memories
// (1 / degree), as a personalised PageRank's first step, so a rare name counts and a hub
// cannot flood.
CALL () {
  UNWIND $lists.entities AS key
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
CALL (pool) {
  WITH 1 AS on
  WHERE $hops >= 1
  UNWIND pool[..$seeds] AS f
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
// (In a subquery: its one row stays when nothing was reached.)
CALL (named, hop1, hop2) {
  UNWIND [x IN named | {n: x.n, activation: 0.0, subject: 0.0, named: x.activation, hop: 0,
                        from: null, step: {kind: 'query', name: x.name, weight: x.activation}}]
         + [x IN hop1 | x {.*, named: 0.0, hop: 1}] + [x IN hop2 | x {.*, named: 0.0, hop: 2}]
         AS r
  WITH hop1, r ORDER BY r.hop
  WITH hop1, r.n AS n, collect(r)[0] AS first, sum(r.activation) AS activation,
       sum(r.subject) AS subject, sum(r.named) AS by_query
  WITH hop1, n, first, activation, subject, by_query,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN null
            ELSE 2 * vector.similarity.cosine(n.embedding, $vector) - 1 END AS cosine
  RETURN collect({id: n.id, n: n, hop: first.hop, from: first.from, step: first.step,
                  cosine: cosine,
                  prev: [y IN hop1 WHERE first.hop = 2 AND y.n.id = first.from |
                        {from: y.from, step: y.step}][0],
                  bonus: $beta * (activation - subject) * CASE WHEN cosine IS NULL THEN 1.0
                                                               WHEN cosine < 0 THEN 0.0
                                                               ELSE cosine ^ 2 END
                         + $beta * subject + $mention_weight * by_query}) AS reached
}
CALL (reached, pool) {
  UNWIND pool AS p
  MATCH (m:Memory {id: p.id, scope: p.scope})
    USING INDEX m:Memory(scope, id)
  WITH p, m, [x IN reached WHERE x.n = m][0] AS x
  RETURN m, p AS candidate, p.score + coalesce(x.bonus, 0.0) AS score, x, null AS cosine,
         null AS retention, null AS layer
  UNION ALL
  UNWIND reached AS x
  WITH x WHERE NOT [x.n.scope, x.id] IN [p IN pool | [p.scope, p.id]]
  WITH x, x.n AS m, $decay[x.n.kind] AS d,
       duration.inSeconds(coalesce(x.n.last_accessed, x.n.created_at), $now).seconds
         / 86400.0 AS age
  WITH x, m,
       {{retention}} AS retention,
       CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
  RETURN m, null AS candidate,
         x.bonus * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer
           * {{usefulness}} AS score, x,
         x.cosine AS cosine, retention, layer
}
// A memory about what the query names (its title, a turn's speaker) rises by a factor.
WITH m, candidate, x, cosine, retention, layer,
     score * CASE WHEN size($lists.entities) > 0
                   AND EXISTS { (m)-[:ABOUT]->(e:Entity) WHERE e.key IN $lists.entities }
                  THEN 1 + $subject_weight ELSE 1.0 END AS score
ORDER BY score DESC, m.id
LIMIT $answer_k
// With $turns, each ranked turn brings its conversation neighbours (the caller re-ranks
// with them: conversation order), in this same round trip.
OPTIONAL CALL (m) {
  WITH m AS t
  WHERE $turns AND t.position IS NOT NULL
  {{neighbours}}
  RETURN prev, next
}
RETURN {id: m.id, memory: {{hit}}, direct: candidate IS NOT NULL, candidate: candidate,
        score: score, activation: x.bonus, hop: x.hop, from: x.from, step: x.step,
        prev_step: x.prev, relevance: cosine, cosine: cosine, retention: retention,
        layer: layer, prev: prev, next: next} AS hit
