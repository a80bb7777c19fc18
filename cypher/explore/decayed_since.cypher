// explore/decayed_since — what sweep moved since a date: memories that went cold or
// became stubs, were shadowed or archived (this month: :param since => datetime() -
// duration('P30D')).
// Params: $scope, $since (datetime).
// Returns: m, change, at — most recent first.
MATCH (m:Memory {scope: $scope})
UNWIND [['cold', m.cooled_at], ['stub', m.stubbed_at], ['shadowed', m.shadowed_at],
        ['archived', m.archived_at]] AS c
WITH m, c[0] AS change, c[1] AS at
WHERE at IS NOT NULL AND at >= $since
RETURN m, change, at
ORDER BY at DESC, m.id
