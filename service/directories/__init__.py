"""GET /v2/directories and GET /v2/directories/{name}: each loaded payer directory's scorecard
(DESIGN 5.9)."""
