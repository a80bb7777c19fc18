// admin/server_info — what the server is, for `doctor`.
// Params: none.
// Returns: name, versions (list), edition.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions, edition
