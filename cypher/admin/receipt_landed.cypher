// admin/receipt_landed — whether the transaction that wrote receipt $key of scope
// $scope committed (admin/receipt). Run on the member that takes writes.
// Params: $scope, $key.
// Returns: landed (one row).
RETURN EXISTS { MATCH (r:Receipt {key: $key}) WHERE r.scope = $scope } AS landed
