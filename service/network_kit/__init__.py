"""What the coverage check and the plan search share about plan networks, one way for both:
the asked NPIs and the statuses answered for them (models.py), the multi-search bodies that
read providers and coverage rows (query.py), the stored facts and flagged plans read from
their answers (store.py), and who is in network on a day by the one in-force rule
(evaluate.py)."""
