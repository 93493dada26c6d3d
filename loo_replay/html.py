"""HTML for the report and replay pages: what is markup, and escaping everything else.

``Markup`` is text that already is HTML (built here or by the pages from escaped
parts); any other value put into a page goes through ``escape``, so forgetting to
escape a log's text shows it as text instead of running it.  The pages' style sheets
and scripts are package files (``loo_replay/assets``), read with ``asset``.
"""

from __future__ import annotations

import functools
import html

import orjson

from loo_replay import package_file
from loo_replay.engine.cards import CARD_SPELLINGS, DIAMONDS, HEARTS, display


class Markup(str):
    """Text that is HTML as it stands: ``escape`` leaves it alone."""

    __slots__ = ()


def escape(value: object) -> Markup:
    """``value`` as HTML: markup as it is, anything else as text (``< > & " '`` escaped)."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(str(value)))


def script_json(value: object) -> Markup:
    """JSON that cannot end its ``<script>`` element: ``< > &`` as ``\\u`` escapes
    (values JSON has no form for are written as their ``str``)."""
    text = orjson.dumps(value, default=str).decode("utf-8")
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def card(code: str | None) -> Markup:
    """A canonical card (``TH``) in display form (``cards.display``: ``10♥``), hearts and
    diamonds red; a code that is no card is shown escaped, as it is."""
    if not code:
        return Markup("")
    number = CARD_SPELLINGS.get(code)
    if number is None:
        return escape(code)
    shown = escape(display(number))
    red = number // 13 in (HEARTS, DIAMONDS)
    return Markup(f'<span class="red">{shown}</span>') if red else shown


@functools.cache
def asset(name: str) -> str:
    """The text of the package file ``assets/<name>`` (a page's style sheet or script)."""
    return package_file("assets", name).read_bytes().decode("utf-8")
