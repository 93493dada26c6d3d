"""The replay page's stylesheet and script (``assets/replay.css``, ``assets/replay.js``),
inlined into every page (no external file).

The script reads the steps from ``#replay-data`` and builds every node with
``createElement``/``textContent``; it never parses log text as HTML.
"""

from __future__ import annotations

from loo_replay.html import asset

PAGE_CSS = asset("replay.css")
PAGE_JS = asset("replay.js")
