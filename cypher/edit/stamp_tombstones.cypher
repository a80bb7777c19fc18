// edit/stamp_tombstones — give the tombstones a hard forget just left their forget keys
// (`write.forgotten`: computed in Python from the texts it returned, in the same
// transaction), so a reworded copy of a forgotten text is refused too.
// Params: $scope, $now (the forget's time), $keys (list of {id, key}).
// Returns: stamped (tombstones given a key).
UNWIND $keys AS k
MATCH (t:Tombstone {id: k.id, scope: $scope})
WHERE t.forgotten_at = $now
SET t.key = k.key
RETURN count(t) AS stamped
