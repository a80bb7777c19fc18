// ingest/associate — ASSOCIATED edges between memories (synaptic at ingest, or manual),
// stored once per pair whatever the direction; an existing edge is left as it is, so
// re-ingesting the same input adds nothing.
// Params: $rows: list of {a, b, kind, weight (float), at (datetime)}.
// Returns: created (how many edges are new).
UNWIND $rows AS l
MATCH (a:Memory {id: l.a}), (b:Memory {id: l.b})
OPTIONAL MATCH (a)-[old:ASSOCIATED]-(b)
WITH l, a, b, old IS NULL AS fresh
MERGE (a)-[r:ASSOCIATED]-(b)
  ON CREATE SET r.kind = l.kind, r.weight = l.weight, r.created_at = l.at,
                r.strengthened_at = l.at, r.count = 1
RETURN count(CASE WHEN fresh THEN 1 END) AS created
