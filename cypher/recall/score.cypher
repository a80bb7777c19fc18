// recall/score — memories reached by association, with their properties and the same
// temporal factor as direct hits; their relevance is their cosine to the query.
// Params: $items (list of {id, activation}), $vector (list of float or null), $scope,
//         $temporal, $layer_factor, $decay, $now.
// Returns: id, memory, relevance, cosine, retention, layer, score (activation-based).
UNWIND $items AS item
MATCH (m:Memory {id: item.id})
WITH m, item,
     CASE WHEN $vector IS NULL OR m.embedding IS NULL THEN null
          ELSE 2 * vector.similarity.cosine(m.embedding, $vector) - 1 END AS cosine,
     $decay[m.kind] AS d,
     duration.inSeconds(coalesce(m.last_accessed, m.created_at), $now).seconds / 86400.0
       AS age
WITH m, item, cosine,
     CASE WHEN d IS NULL OR d.h IS NULL THEN 1.0
          ELSE d.floor + (1 - d.floor) * exp(-log(2) * (
            (CASE WHEN age < 0 THEN 0.0 ELSE age END)
            / (d.h * coalesce(m.stability, 1.0) * (0.5 + coalesce(m.importance, 0.5))
               * (0.5 + coalesce(m.confidence, 0.5)))) ^ d.shape)
     END AS retention,
     CASE WHEN m.scope = $scope THEN 1.0 ELSE $layer_factor END AS layer
RETURN m.id AS id, m {.*, embedding: null} AS memory, cosine AS relevance, cosine,
       retention, layer,
       item.activation * ((1 - $temporal) + $temporal * retention ^ 0.3) * layer AS score
