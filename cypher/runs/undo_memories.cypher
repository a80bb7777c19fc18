// runs/undo_memories — take out what run $run wrote: its memories (and the versions made
// of them, which copied the tag), with their edges. The entities and sessions they were
// in are marked first, for runs/undo_entities and runs/undo_sessions to settle. In
// batches, each its own transaction: nothing of a run is visible as a partial state
// for long, and an undo interrupted half-way is finished by running it again.
// Params: $run, $scope.
// Returns: deleted.
MATCH (m:Memory {scope: $scope})
WHERE m.import_run = $run
CALL (m) {
  OPTIONAL MATCH (m)-[:MENTIONS|ABOUT]->(e:Entity)
  SET e.undo = $run
  WITH DISTINCT m
  OPTIONAL MATCH (m)-[:IN_SESSION]->(s:Session)
  SET s.undo = $run
  WITH DISTINCT m
  DETACH DELETE m
} IN TRANSACTIONS OF 1000 ROWS
RETURN count(*) AS deleted
