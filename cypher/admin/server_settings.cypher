// admin/server_settings — the values of some of the server's settings (`bench batch`
// prints the heap and the transaction memory it measured on).
// Params: $names (list of setting names).
// Returns: name, value — one row per setting the server knows.
SHOW SETTINGS $names YIELD name, value
RETURN name, value
