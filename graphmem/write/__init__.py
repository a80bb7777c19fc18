"""The write path: records, files, gates, entities and the one transaction per input."""
