// admin/receipt_landed — whether the transaction that wrote receipt $key of scope
// $scope committed (admin/receipt). Run on the member that takes writes.
// Params: $scope, $key.
// Returns: landed (one row).
OPTIONAL MATCH (r:Receipts {scope: $scope})
RETURN $key IN coalesce(r.keys, []) AS landed
