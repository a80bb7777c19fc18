// migrations/003_retire_text_scope_fulltext_index — drop the text + scope_key full-text index of earlier
// versions; memory_text_context_scope (`admin/fulltext_index`) replaces it.
// Params: none.
DROP INDEX memory_text_scope IF EXISTS
