// admin/session_position_index — a session's turns by place: (session, position), so the
// write path reads a session's most recent turns by a range of places, whatever the
// session's length (ingest/session_members).
// Params: none. Returns: nothing.
CREATE INDEX memory_session_position IF NOT EXISTS
FOR (m:Memory) ON (m.session, m.position)
