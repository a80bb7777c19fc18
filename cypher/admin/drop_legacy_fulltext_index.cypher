// admin/drop_legacy_fulltext_index — drop the text-only full-text index of earlier
// versions (graphmem.schema.LEGACY_FULLTEXT_INDEX); memory_text_scope replaces it.
// Params: none.
DROP INDEX fulltext_index_Memory_text IF EXISTS
