// migrations/012_unstemmed_words — drop the full-text index of earlier versions, whose
// words were not stemmed; memory_words (`admin/fulltext_index`) replaces it.
// Params: none.
// Returns: nothing.
DROP INDEX memory_text_context_scope IF EXISTS
