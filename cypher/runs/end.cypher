// runs/end — forget run $run once it is settled (kept whole, or undone whole). Its
// memories keep `import_run`, which says which run wrote them.
// Params: $run.
// Returns: nothing.
MATCH (r:ImportRun {id: $run})
DELETE r
