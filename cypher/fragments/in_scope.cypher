// fragments/in_scope — whether memory n is the caller's to read: its own scope, or a
// mounted layer's public memory. The one scope rule of recall; written where a query
// says {{in_scope}}; needs n, $scope and $layers.
(n.scope = $scope OR (n.scope IN $layers AND n.visibility = 'public'))
