// tokens/create — store a service token: its public id, a name, the SHA-256 of its
// secret (never the secret), the scopes it may use and whether it may only read.
// Params: $id, $token_name, $hash, $scopes (list of string), $read_only (bool),
//         $now (datetime).
// Returns: id.
CREATE (t:Token {id: $id, name: $token_name, hash: $hash, scopes: $scopes,
                 read_only: $read_only, created_at: $now})
RETURN t.id AS id
