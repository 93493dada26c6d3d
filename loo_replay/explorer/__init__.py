"""``loo-replay serve``: a local, read-only web explorer over a database (docs/explorer.md)."""
