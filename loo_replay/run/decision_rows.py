"""A loaded deal's judged decisions as rows of ``decision_deals`` and ``decisions``
(docs/database.md, "Judged decisions").

The ingest worker judges each audited deal beside its double-dummy analysis, with the
deal's replay still on it (``judge_deal`` gives the figures ``analyse --decisions``
prints), and ``frames.FrameBuilder.decisions`` adds these rows as computed.  Not compiled:
the judging itself is, and its cost dwarfs the rows'.
"""

from __future__ import annotations

from msgspec.structs import replace

from loo_replay.engine.judging import (
    CARD_KIND,
    DECLARE,
    SKIPPED,
    DealDecisions,
)
from loo_replay.engine.model import Declare
from loo_replay.engine.session import DealAudit
from loo_replay.run.render import Sampling
from loo_replay.run.rows import DecisionDealRow, DecisionRow


def decision_rows(
    sid: str, index: int, deal: DealAudit, judged: DealDecisions, s: Sampling
) -> list[DecisionDealRow | DecisionRow]:
    """The deal's row, then a row per option of each decision, then one per unjudged one."""
    assert deal.result is not None
    record = deal.result.record
    number = record.number
    out: list[DecisionDealRow | DecisionRow] = [
        DecisionDealRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            status=judged.status,
            reason=judged.reason,
            samples=s.samples,
            seed=s.seed,
            unit=judged.unit,
            declarations=judged.declarations,
        )
    ]
    if judged.status == SKIPPED:
        return out
    events = {e.index: e for e in record.events}

    def unvalued(player: str, event: int, reason: str | None) -> DecisionRow:
        """The row of a decision ``reason`` says could not be valued; with None, the
        frame of each of its options' rows."""
        kind = DECLARE if isinstance(events.get(event), Declare) else CARD_KIND
        return DecisionRow(
            session_id=sid,
            deal_index=index,
            deal=number,
            event=event,
            seat=record.seats.index(player),
            player=player,
            kind=kind,
            trick=None,
            option=None,
            position=None,
            value=None,
            se=None,
            chosen=None,
            best=None,
            loss=None,
            loss_se=None,
            severity=None,
            accuracy=None,
            samples=judged.samples,
            reason=reason,
            message=None,
        )

    for d in judged.items:
        frame = replace(
            unvalued(d.player, d.index, None),
            kind=d.kind,
            trick=d.trick,
            loss=d.loss,
            loss_se=d.loss_se,
            severity=d.klass,
            accuracy=d.accuracy,
            message=d.message,
        )
        out.extend(
            replace(
                frame,
                option=o.key,
                position=position,
                value=o.value,
                se=o.se,
                chosen=o.key == d.chosen,
                best=o.key == d.best,
            )
            for position, o in enumerate(d.options)
        )
    out.extend(unvalued(u.player, u.index, u.reason) for u in judged.unjudged)
    return out
