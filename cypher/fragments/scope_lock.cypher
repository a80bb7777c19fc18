// fragments/scope_lock — a write's $rows grouped by scope, with each scope's node locked
// (made when missing, counting the memories the scope already holds): rows, s and `own`,
// the label the scope's memories carry once it has, or is getting, a vector index of its
// own (else []). A writer reads the label only after taking the lock, and the switch to
// an own index sets it under the same lock, so no new memory of the scope misses it
// (docs/decisions.md, "A big scope gets a vector index of its own").
// Under the same lock the scope's embedding model is claimed for $model when the scope
// holds no memory yet, and read otherwise (one written before models were recorded:
// $legacy): a statement that returns it lets the writer refuse vectors of two models in
// one scope, whatever another process did meanwhile (docs/decisions.md, "A scope knows
// its model"). Needs $model, $legacy.
UNWIND $rows AS r
WITH r.scope AS name, collect(r) AS rows
MERGE (s:Scope {name: name})
SET s.written_at = datetime()
WITH rows, s, name
SET s.written = CASE WHEN s.written IS NULL THEN COUNT { (x:Memory {scope: name}) }
                     ELSE s.written END,
    s.model = CASE WHEN EXISTS { MATCH (:Memory {scope: name}) }
                   THEN coalesce(s.model, $legacy) ELSE $model END
WITH rows, s, CASE WHEN s.label =~ 'Scope_[0-9a-f]{24}' THEN [s.label] ELSE [] END AS own
