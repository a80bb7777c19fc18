// ingest/create_memories — new memories, one UNWIND for the batch. The writer has just
// checked, inside the same transaction, that none of these ids exists in the scope, so
// CREATE (cheaper than MERGE) is safe; the (scope, id) uniqueness constraint still guards
// against a racing writer.
// metadata keys travel as `meta.<key>` properties; the embedding is stored as a float32
// vector property for the vector index. The scope's node is locked first and counts them
// (fragments/scope_lock); they carry its own-index label when it has one.
// Params: $rows: list of {id, text, kind, scope, scope_key, visibility, importance, confidence,
//         source, tags, meta (map), created_at (datetime), valid_until (datetime or
//         null), added_by, content_hash, position and session (an explicit place in a
//         conversation, or null: placed by arrival later), embedding (list of float),
//         import_run (the run writing it, graphmem.write.runs; null in one transaction)}.
//         $at (int), $share (float): admin/scope_due's rule, asked here under the lock
//         when $due (a transaction's last batch: counting every memory inside a big
//         transaction reads all it wrote, so once, not once a batch).
//         $model, $legacy: fragments/scope_lock's.
// Returns per scope: scope, model (the scope's embedding model: the writer refuses
//          another), vector and text — whether it is now due a vector or full-text
//          index of its own by admin/scope_due's rule (the writer then asks scope_due
//          after the commit only when one is true: a read less for nearly every write).
{{scope_lock}}
SET s.written = s.written + size(rows)
WITH rows, own, s
CALL (rows, own) {
  UNWIND rows AS r
  CREATE (m:Memory {id: r.id, scope: r.scope})
  SET m.text = r.text,
      m.kind = r.kind,
      m.scope = r.scope,
      m.scope_key = r.scope_key,
      m.valid_until = r.valid_until,
      m.visibility = r.visibility,
      m.importance = r.importance,
      m.confidence = r.confidence,
      m.source = r.source,
      m.tags = r.tags,
      m.content_hash = r.content_hash,
      m.added_by = r.added_by,
      m.position = r.position,
      m.session = r.session,
      m.created_at = r.created_at,
      m.valid_from = r.created_at,
      m.access_count = 0,
      m.stability = 1.0,
      m.confirmation_count = 0,
      m.lifecycle = 'active',
      m.tier = 'hot',
      m.import_run = r.import_run
  SET m += r.meta
  // The kind as a label too: Neo4j Browser styles nodes by label (cypher/explore/*.grass).
  SET m:$(toUpper(left(r.kind, 1)) + substring(r.kind, 1))
  SET m:$(own)
  WITH m, r
  CALL db.create.setNodeVectorProperty(m, 'embedding', r.embedding)
}
WITH s, $due AND s.written >= $at AS grown
WITH s, grown, CASE WHEN grown AND s.vector_index IS NULL THEN COUNT { (m:Memory) } END AS total
RETURN s.name AS scope, s.model AS model,
       grown AND s.vector_index IS NULL AND s.written <= total * $share AS vector,
       grown AND s.text_index IS NULL AS text
