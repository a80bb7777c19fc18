// admin/memory_scope_kind_index — a scope's memories of one kind: (scope, kind), so a
// hard forget finds the scope's reflections without reading the scope's other memories
// (edit/forget_hard), whatever the scope's size and the other scopes' reflections.
// Params: none. Returns: nothing.
CREATE INDEX memory_scope_kind IF NOT EXISTS
FOR (m:Memory) ON (m.scope, m.kind)
