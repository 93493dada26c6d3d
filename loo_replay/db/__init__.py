"""Audits in DuckDB: the schema and its migrations, bulk loading, ingest and queries.

``migrations`` owns the tables and views (versioned migrations), ``versions`` reads a
database's version and upgrades it, ``opening`` opens one safely, ``frames`` turns
audited sessions into Arrow tables, ``load`` puts them into the database one
file per transaction, ``ingest`` orchestrates reading, auditing (optionally
in worker processes) and loading, ``queries`` serves ``stats``, ``query`` and
``export``, and ``commands`` is the command line over all of it.
"""
