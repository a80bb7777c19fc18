// migrations/002_retire_text_fulltext_index — drop the text-only full-text index of earlier
// versions; memory_text_context_scope (`admin/fulltext_index`) replaces it.
// Params: none.
DROP INDEX fulltext_index_Memory_text IF EXISTS
