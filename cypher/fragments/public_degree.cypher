// fragments/public_degree — an entity's public degree: its public memories that mention
// it or are about it (what a reader mounting the scope as a layer may count). Written
// into a query where it says {{public_degree}}; needs e (the entity).
COUNT { MATCH (e)<-[:MENTIONS|ABOUT]-(mentioner:Memory {visibility: 'public'}) RETURN DISTINCT mentioner }
