"""The write path: records, files, gates, entities, and one outcome per input."""
