// ingest/tombstones — which of these ids and content hashes a hard forget left a
// tombstone for in $scope: the write path refuses them unless asked to write them again.
// Params: $scope, $ids (list of string), $hashes (list of string).
// Returns: id, content_hash, forgotten_at — one row per matching tombstone.
MATCH (t:Tombstone {scope: $scope})
WHERE t.id IN $ids OR t.content_hash IN $hashes
RETURN t.id AS id, t.content_hash AS content_hash, t.forgotten_at AS forgotten_at
