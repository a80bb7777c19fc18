"""Memories over time: decay, maintenance, summaries, edits and packs."""
