"""The style sheet and script every report page shares (``assets/report.css``,
``assets/report.js``), written once beside the pages.

They are files, not inline, so the pages' Content Security Policy can allow
scripts from the report's own folder only (``script-src 'self'``): text from
a log that slipped into the markup still could not run.
"""

from __future__ import annotations

from loo_replay.html import asset

REPORT_CSS = asset("report.css")
REPORT_JS = asset("report.js")
