"""The read path: candidates, association, conversation order, reinforcement, context."""
