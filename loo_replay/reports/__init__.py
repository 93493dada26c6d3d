"""Session reports: Plotly figures from the database, written as offline HTML pages.

``queries`` asks DuckDB (through Polars) for what a figure or table shows,
``figures`` turns it into Plotly figure specs, ``pages`` into
HTML, ``replays`` re-audits a session's log for its deals' replay pages,
``build`` writes everything into one output folder (``names`` keeps every
file inside it) and ``commands`` is the command line (``report``, ``audit``).
"""
