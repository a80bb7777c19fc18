// fragments/lock_scope — take the lock of scope $scope's node before touching any of its
// memories, as every statement of the write path does (fragments/scope_lock): writers of
// one scope (recall's reinforcement, forget, links) then queue on that one lock
// instead of deadlocking over the scope's memories in different orders. Written first in
// a query where it says {{lock_scope}}; needs $scope.
CALL () {
  OPTIONAL MATCH (lock:Scope {name: $scope})
  SET lock.locked_at = datetime()
}
