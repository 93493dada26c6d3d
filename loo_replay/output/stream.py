"""validate's and analyse's sink: their rendered documents written, in the order they come,
as the JSON audit document or as text with a last line, and counted.

A sink only writes: the driver (``run.driver``) reads the input and runs the work, and the
command chooses where the streams go and what the count means for its exit status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import IO, Generic, TypeVar

from loo_replay.output.json_document import Rendered, write_audit
from loo_replay.output.text import safe
from loo_replay.run.audit import Summary

S = TypeVar("S", bound=Summary)


class AuditStream(Generic[S]):
    """Where an audit's documents go: the JSON document to ``out`` (``as_json``, indented
    with ``pretty``), or each text line to ``line`` then ``last(summary)``, ``summary``
    the (empty) count of what was found; a document's warning (an entry of a folder
    skipped) to ``warn`` as it goes by.  A plain class: a dataclass costs validate's start
    the compiling of the methods it generates (``run.driver.Input``)."""

    def __init__(
        self,
        as_json: bool,
        pretty: bool,
        summary: S,
        last: Callable[[S], str],
        out: IO[bytes],
        line: Callable[[str], None],
        warn: Callable[[str], None],
    ) -> None:
        self.as_json = as_json
        self.pretty = pretty
        self.summary = summary
        self.last = last
        self.out = out
        self.line = line
        self.warn = warn

    def write(self, rendered: Iterable[Rendered]) -> S:
        """Write ``rendered`` and return what it counted."""
        documents = self._warned(rendered)
        if self.as_json:
            write_audit(documents, self.out, self.pretty, self.summary)
            return self.summary
        for doc in documents:
            self.summary.merge(doc.counts)
            for text in doc.lines:
                self.line(text)
        self.line("")
        self.line(self.last(self.summary))
        return self.summary

    def _warned(self, rendered: Iterable[Rendered]) -> Iterator[Rendered]:
        for doc in rendered:
            if doc.warning is not None:
                self.warn(f"loo-replay: {safe(doc.warning, 600)}")
            yield doc
