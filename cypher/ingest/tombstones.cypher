// ingest/tombstones — which of these ids, content hashes and forget keys a hard forget
// left a tombstone for in $scope: the write path refuses them unless asked to write them
// again (docs/decisions.md, "What forgotten covers").
// Params: $scope, $ids, $hashes, $keys (lists of string).
// Returns: id, content_hash, key, forgotten_at — one row per matching tombstone.
MATCH (t:Tombstone {scope: $scope})
WHERE t.id IN $ids OR t.content_hash IN $hashes OR t.key IN $keys
RETURN t.id AS id, t.content_hash AS content_hash, t.key AS key,
       t.forgotten_at AS forgotten_at
