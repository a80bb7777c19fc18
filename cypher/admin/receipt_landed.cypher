// admin/receipt_landed — whether the transaction that wrote receipt $key into scope
// $scope's node committed (admin/receipt). Run on the member that takes writes.
// Params: $scope, $key.
// Returns: landed (one row).
OPTIONAL MATCH (s:Scope {name: $scope})
RETURN $key IN coalesce(s.receipts, []) AS landed
