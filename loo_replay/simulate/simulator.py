"""The ``Simulator``: seeded sessions of one ruleset, deal after deal through the engine's
own session audit, which fills each deal's ``recorded`` block."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

from loo_replay.engine.model import DealRecord
from loo_replay.engine.options import Options
from loo_replay.engine.replay import OVER, Replay, deal_plan
from loo_replay.engine.session import DealAudit, DealInput, SessionReplay
from loo_replay.engine.vocab import Status
from loo_replay.simulate.colluders import Colluders, Partners
from loo_replay.simulate.dealing import Crooked, Dealing, fair_deal
from loo_replay.simulate.injector import Injector, corrupt_record, pick_code
from loo_replay.simulate.players import Deal, Table
from loo_replay.simulate.truth import Truth, TruthFinding
from loo_replay.simulate.writing import deal_json, event_json, recorded_json

NAMES = (
    "ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal",
    "ivy", "jon", "kit", "lou", "max", "ned", "olive", "pip",
)  # fmt: skip
TIMID_POOL = 10**6


def max_players(o: Options) -> int:
    """How many can sit: hands, the Miss and a turned card must come out of one pack."""
    size = o.deal_hand_size
    return min(len(NAMES), (52 - 1 - (size if o.deal_miss else 0)) // size)


def _seated(name: str, players: int, what: str) -> None:
    if name not in NAMES[:players]:
        raise ValueError(
            f"no player {name!r} to {what}; the players are {', '.join(NAMES[:players])}"
        )


class Simulator:
    """Plays sessions of one ruleset with ``players`` seats from a seeded generator."""

    def __init__(
        self,
        options: Options,
        ruleset: str,
        players: int,
        seed: int,
        violations: float = 0.0,
        corrupt: float = 0.0,
        crooked: Crooked | None = None,
        riffles: int | None = None,
        colluders: tuple[Colluders, ...] = (),
    ) -> None:
        if not 3 <= players <= max_players(options):
            raise ValueError(
                f"{players} players cannot sit at {ruleset}: 3 to {max_players(options)} can"
            )
        if crooked is not None:
            _seated(crooked.player, players, "deal crookedly")
        for c in colluders:
            _seated(c.a, players, "collude")
            _seated(c.b, players, "collude")
        self.o = options
        self.ruleset = ruleset
        self.players = NAMES[:players]
        self.seed = seed
        self.violations = violations
        self.corrupt = corrupt
        self.crooked = crooked
        self.riffles = riffles
        self.colluders = colluders
        self.truth = Truth()
        if colluders:
            self.truth.colluders = [asdict(c) for c in colluders]
        if crooked is not None or riffles is not None:
            self.truth.dealing = {
                "crooked_dealer": None if crooked is None else asdict(crooked),
                "shuffle": "uniform" if riffles is None else f"riffle:{riffles}",
            }

    # -- sessions ------------------------------------------------------------

    def sessions(self, count: int, deals: int) -> Iterator[dict[str, Any]]:
        for index in range(count):
            yield self.session(f"sim-{self.ruleset}-{self.seed}-{index + 1}", deals, index)

    def session(self, sid: str, deals: int, index: int = 0) -> dict[str, Any]:
        rng = random.Random(f"{self.seed}:{index}")
        chips = {p: 500 for p in self.players}
        chain = SessionReplay(self.players, self.o, chips)
        out: list[dict[str, Any]] = []
        dealer = self.players[rng.randrange(len(self.players))]
        dealing = Dealing(
            self.o,
            self.players,
            self.crooked,
            self.riffles,
            self.truth,
            random.Random(f"{self.seed}:{index}:dealing"),
            sid,
        )
        partners = None
        if self.colluders:
            crng = random.Random(f"{self.seed}:{index}:colluders")
            partners = Partners(self.colluders, self.players, self.truth, crng, sid)
        for number in range(1, deals + 1):
            code = pick_code(rng, self.violations)
            if code == "dealer-rotation" and number > 1:
                dealer = rng.choice([p for p in self.players if p != dealer])
                self.truth.findings.append(TruthFinding(sid, number, None, dealer, code))
                code = None
            deal = self._deal(rng, chain, number, dealer, code, sid, dealing, partners)
            audit = chain.audit(
                DealInput(number, _record(deal), None, (), dealer, f"/deals/{number - 1}")
            )
            if audit.status == Status.REJECTED:
                raise RuntimeError(f"simulated deal {number} was rejected: {audit.errors}")
            recorded = recorded_json(audit)
            corrupt_record(recorded, rng, self.corrupt, self.players, self.truth, sid, number)
            deal.json["recorded"] = recorded
            out.append(deal.json)
            dealer = self._next_dealer(audit, dealer)
        return {
            "format": "loo-hand-log",
            "version": 1,
            "session": {
                "id": sid,
                "ruleset": self.ruleset,
                "players": [{"id": p} for p in self.players],
                "chips": chips,
                "meta": {"simulated": True, "seed": self.seed},
            },
            "deals": out,
        }

    def _next_dealer(self, audit: DealAudit, dealer: str) -> str:
        if audit.status == Status.MISDEAL and self.o.penalties_misdeal_redeal == "same_dealer":
            return dealer
        i = self.players.index(dealer)
        return self.players[(i + 1) % len(self.players)]

    # -- one deal ------------------------------------------------------------

    def _deal(
        self,
        rng: random.Random,
        chain: SessionReplay,
        number: int,
        dealer: str,
        code: str | None,
        sid: str,
        dealing: Dealing,
        partners: Partners | None,
    ) -> Deal:
        o = self.o
        seats = self.players
        opening = chain.open_deal(number, dealer, seats, None)
        plan = deal_plan(o, opening.context)
        if dealing.previous is None:
            deck, hands, miss, turn_up, rest = fair_deal(rng, len(seats), o.deal_hand_size, plan)
        else:
            deck, hands, miss, turn_up, rest = dealing.riffled(seats.index(dealer), plan)
        if self.crooked is not None and dealer == self.crooked.player:
            dealing.crook(number, seats.index(dealer), hands, miss, turn_up, rest)
        if code == "misdeal":
            victim = rng.randrange(len(seats))
            hands[victim] = hands[victim][:-1]
            self.truth.findings.append(TruthFinding(sid, number, None, dealer, "misdeal"))
        record = DealRecord(
            number,
            seats,
            seats.index(dealer),
            tuple(tuple(h) for h in hands),
            None if miss is None else tuple(miss),
            turn_up,
        )
        deal = Deal(
            deal_json(number, dealer, seats, hands, miss, turn_up),
            Replay(record, o, opening.context),
        )
        if code != "misdeal" and deal.replay.phase != OVER:
            timid = opening.pool_start is not None and opening.pool_start > TIMID_POOL
            injector = Injector(code, deal.replay, rng, self.truth, sid)
            Table(deal, rng, rest, injector, timid, partners).play()
        deal.json["events"] = [event_json(e, seats) for e in deal.events]
        if self.riffles is not None:
            dealing.gather(deal.events, seats.index(dealer), hands, miss, turn_up, deck)
        return deal


def _record(deal: Deal) -> DealRecord:
    rec = deal.replay.record
    return DealRecord(
        rec.number,
        rec.seats,
        rec.dealer,
        rec.hands,
        rec.miss,
        rec.turn_up,
        rec.misdeal,
        tuple(deal.events),
    )
