// migrations/004_scope_nodes — a Scope node for every scope of memories written before scopes had
// one, counting what each holds (writers make and count it from then on).
// Params: none.
// Returns: made (int).
MATCH (m:Memory)
WITH m.scope AS name, count(*) AS held
WHERE NOT EXISTS { MATCH (:Scope {name: name}) }
MERGE (s:Scope {name: name})
  ON CREATE SET s.written = held
RETURN count(*) AS made
