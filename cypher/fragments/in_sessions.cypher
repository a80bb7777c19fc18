// fragments/in_sessions — put memories in their sessions, creating a Session on first use.
// One row per session, so each Session is merged once per batch. A session starts at its
// earliest memory. Session ids are "<scope>#<name>", so two scopes never share a session.
// Reads $scope, $lists.sessions: list of {session (Session id), name, at (earliest
// datetime), agent (string or null), ids (list of memory ids)}.
UNWIND $lists.sessions AS r
MERGE (s:Session {id: r.session})
  ON CREATE SET s.name = r.name, s.scope = $scope, s.started_at = r.at, s.agent = r.agent
SET s.started_at = CASE WHEN s.started_at IS NULL OR r.at < s.started_at THEN r.at
                        ELSE s.started_at END
WITH s, r
UNWIND r.ids AS id
MATCH (m:Memory {id: id, scope: $scope})
  USING INDEX SEEK m:Memory(scope, id)
MERGE (m)-[:IN_SESSION]->(s)
