// edit/forget_soft — forget, softly: the memory is archived and no longer valid from
// $now; it stays findable by id, exact text and --include-archived.
// Params: $id, $scope, $now, $by.
// Returns: id — no row if the memory is missing from the scope.
{{lock_scope}}
MATCH (m:Memory {id: $id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
SET m.lifecycle = 'archived', m.archived_at = $now, m.archive_reason = 'forgotten',
    m.forgotten_at = $now, m.forgotten_by = $by,
    m.valid_until = CASE WHEN m.valid_until IS NULL OR m.valid_until > $now THEN $now
                         ELSE m.valid_until END
RETURN m.id AS id
