// explore/session_story — a session's memories in the order they happened, chained by
// their synaptic links. For Browser:  :param session => '<scope>#<session name>'
// Params: $session (Session id).
// Returns: s, m, r (IN_SESSION), links — oldest memory first.
MATCH (s:Session {id: $session})<-[r:IN_SESSION]-(m:Memory)
OPTIONAL MATCH (m)-[a:ASSOCIATED]-(:Memory)-[:IN_SESSION]->(s)
RETURN s, m, r, collect(a) AS links
ORDER BY m.created_at, m.id
