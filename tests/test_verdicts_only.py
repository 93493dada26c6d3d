"""``validate`` renders verdicts only, so it audits with ``keep=False``: each deal's verdict
drops its replay (result, settlement, context) as soon as the deal is audited, and a
session's replays never pile up in memory.  The loader takes each deal's rows from the
``each`` hook, the replay still on the verdict, then drops it too.  Dropping them must
change no verdict.
"""

from __future__ import annotations

import orjson

from loo_replay.engine.session import DealAudit
from loo_replay.logs.reader import Document
from loo_replay.output.json_document import session_json
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.run.audit import SessionReport, audit_document
from loo_replay.simulate import Simulator
from tests.loo_helpers import read_logs
from tests.test_cli import SAMPLES

CHOICE = RuleChoice()


def _documents() -> list[Document]:
    """The sample logs, and simulated sessions with injected violations and corrupted
    records (rejected deals, misdeals, penalties, broken pool continuity)."""
    docs = [d for d in read_logs([SAMPLES]) if isinstance(d, Document)]
    for ruleset in ("three-card", "five-card"):
        sim = Simulator(builtin(ruleset).options, ruleset, 5, 11, 0.4, 0.2)
        for n, doc in enumerate(sim.sessions(4, 15)):
            docs.append(Document(f"{ruleset}.jsonl", n + 1, orjson.dumps(doc)))
    return docs


def test_verdicts_without_their_replays_are_the_same_verdicts() -> None:
    audited = rejected = 0
    for doc in _documents():
        kept, dropped = audit_document(doc, CHOICE), audit_document(doc, CHOICE, keep=False)
        assert isinstance(kept, SessionReport) and isinstance(dropped, SessionReport), doc.file
        assert session_json(dropped) == session_json(kept), (doc.file, doc.line)
        for deal in dropped.deals:
            assert (deal.result, deal.settlement, deal.context) == (None, None, None)
        audited += sum(d.result is not None for d in kept.deals)
        rejected += sum(d.status == "rejected" for d in kept.deals)
    assert audited > 100 and rejected > 0  # the corpus has replays to drop, and rejections


def _seen(doc: Document) -> tuple[list[tuple[int, DealAudit, bool]], SessionReport]:
    """What ``each`` was called with, by an audit that drops the replays, and the audit."""
    seen: list[tuple[int, DealAudit, bool]] = []

    def each(report: SessionReport, index: int, deal: DealAudit) -> None:
        assert report.deals[-1] is deal  # called as the verdict is made, not after
        seen.append((index, deal, deal.result is not None))

    dropped = audit_document(doc, CHOICE, keep=False, each=each)
    assert isinstance(dropped, SessionReport)
    return seen, dropped


def test_each_deal_is_seen_with_its_replay_as_it_is_audited() -> None:
    for doc in _documents():
        seen, dropped = _seen(doc)
        kept = audit_document(doc, CHOICE)
        assert isinstance(kept, SessionReport)
        assert [i for i, _, _ in seen] == list(range(len(kept.deals)))
        assert [d for _, d, _ in seen] == dropped.deals
        assert [replayed for _, _, replayed in seen] == [d.result is not None for d in kept.deals]
