"""``output/stream.py``'s ``AuditStream``, validate's and analyse's sink, on its own: real
audits of real logs (two sample sessions, a document that is not JSON, a folder entry
skipped, a path that does not exist), rendered by validate's work and handed to the sink as
the driver hands them.  What it writes: the JSON audit document (summary first, sessions and
errors in input order) or the text lines and the last line, the warnings aside, and the
summary it returns."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from loo_replay.logs.limits import LIMITS
from loo_replay.output.json_document import Rendered
from loo_replay.output.stream import AuditStream
from loo_replay.output.text import summary_line
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import Summary
from loo_replay.run.driver import each_document
from loo_replay.run.render import RenderSpec, render_documents

SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"
REVOKES = "revokes-2026-11-22"  # a.json: nine deals with findings
CLUB = "club-night-2026-11-20"  # b.json: none


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of two sessions, an entry skipped (a link to nothing) and a document that
    is not JSON, in this order."""
    folder = tmp_path_factory.mktemp("stream") / "logs"
    folder.mkdir()
    shutil.copy(SAMPLES / "three-card-revokes.json", folder / "a.json")
    shutil.copy(SAMPLES / "three-card-club-night.json", folder / "b.json")
    (folder / "c.json").symlink_to(folder / "nothing-here.json")
    (folder / "d.json").write_bytes(b"nope")
    return folder


def rendered(paths: list[Path], as_json: bool, findings_only: bool = False) -> list[Rendered]:
    """validate's rendered documents of ``paths``, in order, as its sink receives them."""
    spec = RenderSpec(RuleChoice(), as_json, findings_only=findings_only)
    return list(each_document(paths, render_documents, spec, LIMITS))


class Written:
    """An ``AuditStream`` whose streams are kept: the bytes, the text lines, the warnings."""

    def __init__(self, as_json: bool, pretty: bool = False) -> None:
        self.out = io.BytesIO()
        self.lines: list[str] = []
        self.warnings: list[str] = []
        self.lasts: list[Summary] = []
        self.summary = Summary()
        line, warn = self.lines.append, self.warnings.append
        self.stream = AuditStream(as_json, pretty, self.summary, self._last, self.out, line, warn)

    def _last(self, summary: Summary) -> str:
        self.lasts.append(summary)
        return summary_line(summary)

    def write(self, docs: list[Rendered]) -> Summary:
        return self.stream.write(docs)

    def document(self) -> dict[str, Any]:
        value = json.loads(self.out.getvalue())
        assert isinstance(value, dict)
        return value


def counted(docs: list[Rendered]) -> Summary:
    total = Summary()
    for doc in docs:
        total.merge(doc.counts)
    return total


SKIPPED = "a symbolic link to nothing"


def test_json_is_one_document_summary_first_then_sessions_and_errors(logs: Path) -> None:
    missing = logs.parent / "missing.json"
    docs = rendered([logs, missing], as_json=True)
    written = Written(as_json=True)
    summary = written.write(docs)
    assert summary is written.summary  # the command's own summary, filled in
    assert summary == counted(docs)
    assert (summary.sessions, summary.deals, summary.violations) == (2, 48, 9)
    assert (summary.unreadable, summary.unreadable_files, summary.skipped_entries) == (1, 1, 1)
    raw = written.out.getvalue()
    assert raw.endswith(b"}\n") and raw.count(b"\n") == 1  # compact: one line
    document = written.document()
    assert list(document) == ["loo_replay", "summary", "sessions", "errors"]
    assert document["summary"] == summary.as_json()
    assert [s["id"] for s in document["sessions"]] == [REVOKES, CLUB]
    assert [s["file"] for s in document["sessions"]] == [str(logs / "a.json"), str(logs / "b.json")]
    assert sum(len(s["deals"]) for s in document["sessions"]) == 48
    errors = document["errors"]
    assert [e["file"] for e in errors] == [str(logs / "c.json"), str(logs / "d.json"), None]
    assert SKIPPED in errors[0]["message"]
    assert errors[1]["message"].startswith("not valid JSON")
    assert errors[2]["message"] == f"{missing}: no such file or directory"
    # JSON goes to the bytes alone; the skipped entry is also said aside, as it goes by.
    assert written.lines == [] and written.lasts == []
    assert written.warnings == [
        f"loo-replay: skipped {logs / 'c.json'}: {SKIPPED} ({logs}/nothing-here.json)"
    ]


def test_pretty_json_is_the_same_document_indented(logs: Path) -> None:
    docs = rendered([logs], as_json=True)
    compact, pretty = Written(as_json=True), Written(as_json=True, pretty=True)
    compact.write(docs)
    pretty.write(docs)
    assert pretty.out.getvalue().startswith(b'{\n  "loo_replay"')
    assert pretty.document() == compact.document()


def test_text_is_each_documents_lines_in_order_then_a_blank_and_the_last_line(
    logs: Path,
) -> None:
    missing = logs.parent / "missing.json"
    docs = rendered([logs, missing], as_json=False)
    written = Written(as_json=False)
    summary = written.write(docs)
    assert summary == counted(docs) and written.lasts == [summary]
    assert written.lines == [line for doc in docs for line in doc.lines] + [
        "",
        summary_line(summary),
    ]
    assert written.lines[-1].startswith("2 session(s), 48 deal(s): 47 audited, 1 misdeal(s)")
    heads = [line for line in written.lines if line.startswith(("Session ", "SKIPPED", "UNREAD"))]
    assert [h.split(" (")[0] for h in heads] == [
        f"Session {REVOKES}",
        f"Session {CLUB}",
        f"SKIPPED skipped {logs / 'c.json'}: {SKIPPED}",
        f"UNREADABLE {logs / 'd.json'} : not valid JSON: Expecting value: line 1 column 1",
        f"UNREADABLE {missing}: no such file or directory",
    ]
    assert written.out.getvalue() == b""  # text goes to the lines alone
    assert len(written.warnings) == 1 and SKIPPED in written.warnings[0]


def test_the_documents_come_out_in_the_order_given(logs: Path) -> None:
    order = [logs / "b.json", logs / "d.json", logs / "a.json"]
    as_json = Written(as_json=True)
    as_json.write(rendered(order, as_json=True))
    document = as_json.document()
    assert [s["id"] for s in document["sessions"]] == [CLUB, REVOKES]
    assert [e["file"] for e in document["errors"]] == [str(logs / "d.json")]
    text = Written(as_json=False)
    text.write(rendered(order, as_json=False))
    sessions = [line.split(" ")[1] for line in text.lines if line.startswith("Session ")]
    assert sessions == [CLUB, REVOKES]
    unreadable = next(i for i, line in enumerate(text.lines) if line.startswith("UNREADABLE"))
    club = text.lines.index(f"Session {CLUB} ({logs / 'b.json'}), ruleset three-card")
    revokes = text.lines.index(f"Session {REVOKES} ({logs / 'a.json'}), ruleset three-card")
    assert club < unreadable < revokes


def test_findings_only_leaves_out_what_has_none_and_counts_everything(logs: Path) -> None:
    full, only = Written(as_json=True), Written(as_json=True)
    full.write(rendered([logs], as_json=True))
    only.write(rendered([logs], as_json=True, findings_only=True))
    assert only.document()["summary"] == full.document()["summary"]  # every deal counted
    assert only.document()["errors"] == full.document()["errors"]  # errors are findings
    (session,) = only.document()["sessions"]  # the clean session is left out
    assert session["id"] == REVOKES
    deals = session["deals"]
    assert len(deals) == 9 < len(full.document()["sessions"][0]["deals"])
    assert all(d["violations"] or d["discrepancies"] or d["errors"] for d in deals)
    text_full, text_only = Written(as_json=False), Written(as_json=False)
    text_full.write(rendered([logs], as_json=False))
    text_only.write(rendered([logs], as_json=False, findings_only=True))
    assert text_only.lines[-1] == text_full.lines[-1]
    assert not any(line.startswith(f"Session {CLUB}") for line in text_only.lines)
    assert set(text_only.lines) <= set(text_full.lines)
    assert len(text_only.lines) < len(text_full.lines)


def test_an_empty_input_writes_an_empty_audit() -> None:
    written = Written(as_json=True)
    assert written.write([]) == Summary()
    assert written.document() == {
        "loo_replay": written.document()["loo_replay"],
        "summary": Summary().as_json(),
        "sessions": [],
        "errors": [],
    }
    text = Written(as_json=False)
    text.write([])
    assert text.lines == ["", summary_line(Summary())] and text.warnings == []
