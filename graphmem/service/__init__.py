"""The HTTP service: tokens that map to scopes (tokens) and the app (app)."""
