// admin/migrations_applied — the migrations this database has had (graph/migrations.py):
// one Migration node each, written when it finished.
// Params: none.
// Returns: id.
MATCH (g:Migration)
RETURN g.id AS id
