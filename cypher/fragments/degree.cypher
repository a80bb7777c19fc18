// fragments/degree — an entity's degree: the memories that mention it or are about it
// (each once). Written into a query where it says {{degree}}; needs e (the entity).
COUNT { MATCH (e)<-[:MENTIONS|ABOUT]-(mentioner:Memory) RETURN DISTINCT mentioner }
