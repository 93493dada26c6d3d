"""The run layer: what every command that reads logs runs, step by step.

``audit`` reads hand logs and replays and audits each session through the engine (its
``Summary`` counts what it found); ``render`` cuts the input into tasks, audits them (and,
for ``analyse``, analyses them) and renders them in order; ``load_work`` audits, analyses
and judges them into the audit's rows, a columnar result (``frames``' ``Batch`` of typed
columns a table) that the database's loader consumes; ``driver`` and ``workers`` drive the
worker processes or the Dask cluster they run on.  The outputs (``output/``, ``db/``,
``reports/``, ``replayer/``) build on these steps.
"""
