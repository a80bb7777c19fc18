// runs/live — the runs whose writer is alive: each keeps a transaction open with its run
// id in the transaction's metadata (graphmem.write.runs). A writer that died (killed, its
// connection lost) has none: the server rolled it back.
// Params: none.
// Returns: run.
SHOW TRANSACTIONS YIELD metaData
WHERE metaData.graphmem_run IS NOT NULL
RETURN metaData.graphmem_run AS run
