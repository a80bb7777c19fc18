// fragments/neighbours — with $turns, the ids of the turns just before and just after
// memory m in its session (NEXT edges; a session lives in one scope) that recall may
// return (fragments/visible), for conversation order (graphmem/read/turns.py). Written
// inside `OPTIONAL CALL (m) { ... }` where a query says {{neighbours}} (a subquery, so
// that a recall without conversation order does none of it); returns before and after,
// null without $turns or without such a turn.
// (No label on n: docs/decisions.md, "A hop from a memory names no label".)
WITH m WHERE $turns AND m.position IS NOT NULL
RETURN [(n)-[:NEXT]->(m) WHERE {{visible}} | n.id][0] AS before,
       [(m)-[:NEXT]->(n) WHERE {{visible}} | n.id][0] AS after
