// admin/migration_applied — record that a migration finished (idempotent: two `init`s that
// ran it at once leave one record).
// Params: $id, $at (when it finished).
// Returns: id.
MERGE (g:Migration {id: $id})
ON CREATE SET g.at = $at
RETURN g.id AS id
