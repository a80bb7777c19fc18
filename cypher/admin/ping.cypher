// admin/ping — the smallest read: it answers once the server holds the writes named by
// the session's bookmarks (the service's bounded wait for a request's Graphmem-Bookmark).
// Params: none.
// Returns: ok (1).
RETURN 1 AS ok
