// ingest/update_memories — rewrite memories by id within their scope, one UNWIND for the batch (a MERGE, so
// a memory deleted meanwhile comes back whole). The text, kind and scores are replaced,
// while created_at, access history and a caller-given added_by are kept; the new text's
// embedding puts the memory back in the hot tier.
// metadata keys travel as `meta.<key>` properties (a null value removes the key).
// The embedding is stored as a float32 vector property for the vector index. The scope's
// node is locked first (fragments/scope_lock): a memory made again here gets the scope's
// own-index label.
// Params: $rows: list of {id, text, kind, scope, scope_key, visibility, importance, confidence,
//         source, tags, meta (map), created_at (datetime), valid_until (datetime or
//         null), added_by, content_hash, position and session (an explicit place in a
//         conversation, or null: the memory keeps its place), embedding (list of float),
//         import_run (the run writing it, for a memory made again; else null)}.
//         $model, $legacy: fragments/scope_lock's.
// Returns per scope: scope, model (the scope's embedding model: the writer refuses
//          another).
{{scope_lock}}
UNWIND rows AS r
MERGE (m:Memory {id: r.id, scope: r.scope})
  ON CREATE SET
    m.created_at = r.created_at,
    m.valid_from = r.created_at,
    m.access_count = 0,
    m.stability = 1.0,
    m.confirmation_count = 0,
    m.lifecycle = 'active',
    m.tier = 'hot',
    m.import_run = r.import_run
SET m.text = r.text,
    m.kind = r.kind,
    m.scope = r.scope,
    m.scope_key = r.scope_key,
    m.valid_until = coalesce(r.valid_until, m.valid_until),
    m.visibility = r.visibility,
    m.importance = r.importance,
    m.confidence = r.confidence,
    m.source = r.source,
    m.tags = r.tags,
    m.content_hash = r.content_hash,
    m.added_by = coalesce(m.added_by, r.added_by),
    m.session = CASE WHEN r.position IS NULL THEN m.session ELSE r.session END,
    m.position = coalesce(r.position, m.position),
    m.tier = 'hot'
SET m += r.meta
// The kind as a label (for Browser styling); a new embedding makes it hot again.
REMOVE m:Episodic:Semantic:Procedural:Core:Heuristic:Reflection:Cold:Stub
SET m:$(toUpper(left(r.kind, 1)) + substring(r.kind, 1))
SET m:$(own)
WITH s, m, r
CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
WITH DISTINCT s
RETURN s.name AS scope, s.model AS model
