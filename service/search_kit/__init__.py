"""What /v2 search and /fhir ask the search index, one way for both: the place clauses and the
in-radius rule (geo.py), the filters both apply (filters.py), what a hit carries and the limits
(limits.py), opaque page tokens (tokens.py) and the store calls (store.py)."""
