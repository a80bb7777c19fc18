// admin/scope_text_index — a full-text index over the memories of one label (a scope's
// own), the fields of the shared one (so recall's queries read the same in both):
// Lucene's statistics there are the scope's alone (docs/decisions.md, "A scope's
// keyword scores are its own"), with its analyzer (admin/fulltext_index). CREATE
// FULLTEXT INDEX takes no label as a parameter: Store.autocommit writes the scope's
// label, checked, where this says Scope_LABEL (`own_label`).
// Params: $index (checked by graph.scope_indexes).
// Returns: nothing.
CREATE FULLTEXT INDEX $index IF NOT EXISTS
FOR (m:Scope_LABEL) ON EACH [m.text, m.context, m.scope_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
