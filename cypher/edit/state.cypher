// edit/state — what an edit must know first: each id's scope, tier and lifecycle, or the
// tombstone a hard forget left.
// Params: $ids (list of string).
// Returns: id, scope, tier, lifecycle, tombstone (map or null) — one row per id found.
UNWIND $ids AS id
OPTIONAL MATCH (m:Memory {id: id})
OPTIONAL MATCH (t:Tombstone {id: id})
WITH id, m, t WHERE m IS NOT NULL OR t IS NOT NULL
RETURN id, m.scope AS scope, m.tier AS tier, m.lifecycle AS lifecycle, t {.*} AS tombstone
