// admin/token_id — a service token's public id is unique (tokens/grant finds it by id).
// Params: none.
// Returns: nothing.
CREATE CONSTRAINT token_id IF NOT EXISTS FOR (t:Token) REQUIRE t.id IS UNIQUE
