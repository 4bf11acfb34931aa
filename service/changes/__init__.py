"""GET /v2/changes: what loads and updates changed, in commit order (DESIGN 5.10)."""
