"""The graph: the store and its schema, the named queries, and the local server."""
