// migrations/008_display_labels — give memories written before display labels existed their
// kind label (Episodic, Semantic, …) and tier label (Cold, Stub), which Neo4j Browser
// styles by (cypher/explore/graphmem.grass). The properties stay the truth.
// Params: none.
// Returns: n (memories labelled).
MATCH (m:Memory)
WHERE NOT (m:Episodic OR m:Semantic OR m:Procedural OR m:Core OR m:Heuristic
           OR m:Reflection)
CALL (m) {
  SET m:$(toUpper(left(m.kind, 1)) + substring(m.kind, 1))
  WITH m WHERE m.tier IN ['cold', 'stub']
  SET m:$(toUpper(left(m.tier, 1)) + substring(m.tier, 1))
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(m) AS n
