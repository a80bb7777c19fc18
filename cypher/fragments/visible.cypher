// fragments/visible — whether recall may return memory n: in scope (fragments/in_scope)
// and passing the recall's filters (lifecycle, kind, metadata, written in
// [$since, $until)). Written where a query says {{visible}}; needs n and those parameters.
{{in_scope}}
  AND n.lifecycle IN $lifecycles AND ($kinds IS NULL OR n.kind IN $kinds)
  AND all(f IN $filters WHERE n[f.key] IN f.values)
  AND ($since IS NULL OR n.created_at >= $since) AND ($until IS NULL OR n.created_at < $until)
