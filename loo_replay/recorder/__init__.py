"""``loo-replay record``: a scorer writes a hand log at the table, judged by the engine as he
types (docs/record.md).  The engine stays pure; this package is a layer around it."""
