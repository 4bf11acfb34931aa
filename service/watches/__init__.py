"""/v2/watches and the webhooks they are delivered by (DESIGN 5.10)."""
