"""Audits in DuckDB: the schema and its migrations, bulk loading, ingest and queries.

``migrations`` owns the tables and views (versioned migrations), ``versions`` reads a
database's version and upgrades it, ``opening`` opens one safely, ``load`` puts the run
layer's batches of columns (``run.frames``) into the database one file per transaction,
``ingest`` is that loader as the sink of the run layer's driver, and ``queries`` serves
``stats``, ``query`` and ``export``.
"""
