// admin/indexes — every index of the database, for `doctor` and the schema check.
// Params: none.
// Returns: name, type, state, entity (label or relationship type), properties,
//          dimensions (vector indexes only, else null).
SHOW INDEXES
YIELD name, type, state, labelsOrTypes, properties, options
RETURN name,
       type,
       state,
       coalesce(labelsOrTypes[0], '') AS entity,
       coalesce(properties, []) AS properties,
       options.indexConfig['vector.dimensions'] AS dimensions
ORDER BY name
