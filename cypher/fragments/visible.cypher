// fragments/visible — whether recall may return memory n: in scope (fragments/in_scope)
// and passing the recall's filters (lifecycle, kind, metadata, written in
// [$since, $until)). Written where a query says {{visible}}; needs n and those parameters.
// A recall without a kind or a time filter passes every kind and the widest window
// (graphmem/read/plan.py), never null: Neo4j plans a query again for each new parameter
// type, and a first filtered recall waited seconds for that.
{{in_scope}}
  AND n.lifecycle IN $lifecycles AND n.kind IN $kinds
  AND all(f IN $filters WHERE n[f.key] IN f.values)
  AND n.created_at >= $since AND n.created_at < $until
