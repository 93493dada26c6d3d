"""The recorder's conversation with the scorer: a prompt_toolkit prompt per entry, with
completion of cards and players, and what the engine says of each entry printed under it.

Every accepted entry is in the journal (fsynced) and the log rewritten before the next
prompt; a refused one is never written, nor one the disk refuses (the journal is cut back
to its whole lines, and the scorer types it again once there is room).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from loo_replay.engine.cards import display, parse_card
from loo_replay.engine.model import Trick, Violation
from loo_replay.engine.session import DealAudit
from loo_replay.evidence.codes import code
from loo_replay.output.text import deal_lines, make_style, safe
from loo_replay.recorder.book import document
from loo_replay.recorder.entry import EntryError, typed
from loo_replay.recorder.journal import Entry, Journal, live, said, write_atomic
from loo_replay.recorder.judge import Stage, Standing, judge, why_must
from loo_replay.recorder.reading import (
    HELP,
    LINE_CHARS,
    QUIT,
    TOO_LONG,
    UNDO,
    read_line,
)
from loo_replay.recorder.sealed import deal_codes, encoded, last_seal, sealed_log

if TYPE_CHECKING:  # prompt_toolkit is imported at the keyboard alone (recorder/keyboard.py)
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

HELP_TEXT = """\
  Enter accepts what is proposed in [brackets].
  Cards: 10h, QS, q♠, t h (Tab completes).
  Declarations: play/p, pass/x, miss/m, defend/d; another player first to
  declare for him (bob pass).
  A card: 7h for the player on turn, cat 7h for another (out of turn), ad civil
  to lead the ace of trumps announcing "Pam, be civil".
  Exchanges: 2 (unseen), 0 (none), KH 2C / 7D 8D (discarded / drawn).
  At any point: show PLAYER CARDS (a hand shown), show miss CARDS,
  flush PLAYER, misdeal, end (the deal stops here), u (undo the last entry),
  q, Ctrl-D or Ctrl-C (stop; all is saved)."""  # no line past 80 columns

Say = Callable[[str], None]


class Recorder:
    """One recording: the live entries, their journal and the log they are written to."""

    def __init__(
        self,
        log: Path,
        journal: Journal,
        entries: list[Entry],
        say: Say,
        colour: bool = False,
        terminal: tuple[Input, Output] | None = None,
    ):
        """``say`` prints what the recorder says (the command line gives it); ``terminal``,
        the keyboard and screen of the prompts (the process's own when None; a pipe in
        tests)."""
        self.log = log
        self.journal = journal
        self.entries = entries
        self.say = say
        self.style = make_style(colour)
        self.standing = judge(entries)
        self.behind: str | None = None  # why the log on disk lags the journal, if it does
        self.too_long = False  # the line being typed went past ``LINE_CHARS``
        self.terminal = terminal

    # -- the loop ------------------------------------------------------------

    def run(self, resumed: bool = False, lines: Iterator[str | None] | None = None) -> bool:
        """Ask until the scorer stops; True when he stopped with Ctrl-C (exit status 130).
        With ``lines`` (``reading.bounded_lines`` of a pipe or a file) the entries are read
        from them, each echoed after its prompt, instead of from the keyboard."""
        self.say(
            f"Recording {safe(self.standing.header.id)} to {safe(str(self.log))}: "
            "u undoes, ? helps, q stops (all is saved)."
        )
        for line in self.recap() if resumed else []:
            self.say(line)
        ask = self._keyboard() if lines is None else self._reader(lines)
        interrupted = False
        while True:
            try:
                text = ask(self.message())
            except EOFError:
                break
            except KeyboardInterrupt:
                interrupted = True
                break
            if self.too_long:
                self.too_long = False
                self.warn(f"✗ {TOO_LONG}")
                continue
            if not self.take(text):
                break
        if self.behind is not None:
            self._rewrite()  # one more try, now that the scorer may have made room
        if self.behind is None:
            self.say(f"Saved {safe(str(self.log))}: loo-replay validate {safe(str(self.log))}")
        for line in self.codes():
            self.say(line)
        return interrupted

    def codes(self) -> list[str]:
        """The night's codes, a deal a line: the last vouches for every deal before it."""
        codes = deal_codes(sealed_log(self.entries, len(self.standing.audits)))
        if not codes:
            return []
        lines = ["Codes of the deals sealed (the last vouches for every deal before it):"]
        lines += [f"  deal {number}  {shown}" for number, shown in codes]
        return lines

    def _keyboard(self) -> Callable[[str], str]:
        """The prompt at the keyboard (made only then: prompt_toolkit warns of a standard
        input that is not a terminal, and entries read from a pipe need none of it)."""
        from loo_replay.recorder.keyboard import keyboard_prompt

        return keyboard_prompt(self, self.terminal)

    def _reader(self, lines: Iterator[str | None]) -> Callable[[str], str]:
        """The prompt of entries read from ``lines``: the prompt and the line as read are
        echoed, a transcript of the session."""

        def ask(message: str) -> str:
            line = next(lines, _END)
            if line is _END:
                raise EOFError
            if line is None:
                self.too_long = True
                self.say(message)
                return ""
            text = typed(line)
            self.say(f"{message}{safe(text, LINE_CHARS)}")
            return text

        return ask

    def take(self, text: str) -> bool:
        """Judge and keep one typed line; False when the scorer stops."""
        try:
            got = read_line(text, self.standing)
        except EntryError as exc:
            self.warn(f"✗ {exc}")
            return True
        if got == QUIT:
            return False
        if got == HELP:
            self.say(HELP_TEXT)
        elif got == UNDO:
            self.undo()
        elif isinstance(got, dict):
            self.add(got)
        return True

    def add(self, entry: Entry) -> None:
        trial = judge([*self.entries, entry], self.standing)
        if trial.errors:
            for error in trial.errors:
                self.warn(f"✗ refused: {error.message}")
            return
        settled = len(trial.audits)
        if settled > len(self.standing.audits):  # the entry settles a deal: it keeps its seal
            seal = last_seal([*self.entries, entry], settled)
            if seal is not None:
                entry = {**entry, "seal": seal}
        self.standing, before = trial, self.standing
        if not self._write(entry):
            self.standing = before
            return
        self.report(before, trial, entry)

    def undo(self) -> None:
        if len(self.entries) < 2:
            self.say("  nothing to undo")
            return
        taken = self.entries[-1]
        before = self.standing
        if not self._write({"kind": "undo"}, judged=False):
            return
        if len(self.standing.audits) < len(before.audits) and isinstance(taken.get("seal"), str):
            withdrawn = code(bytes.fromhex(taken["seal"]))
            number = before.audits[-1].number
            self.say(self.style(f"  code {withdrawn} of deal {number} withdrawn", "warn"))
        self.say(f"  undone: {_described(taken)}")

    def _write(self, entry: Entry, judged: bool = True) -> bool:
        """The journal first (fsynced), then the log from it, atomically; False when the
        journal could not take the entry (it is left as it was).  ``judged``: the standing
        is already the entry's; else (an undo) it is judged before the log is written."""
        try:
            self.journal.append(entry)
        except OSError as exc:
            self.warn(f"✗ not saved ({said(exc, self.journal.path)}): make room, type it again")
            return False
        self.entries = live([*self.entries, entry])
        if not judged:
            self.standing = judge(self.entries, self.standing)
        self._rewrite()
        return True

    def _rewrite(self) -> None:
        """The log from the journal.  If the disk refuses, the old log stays whole and the
        entry is safe in the journal: the next entry, the end or ``--resume`` writes it."""
        try:
            write_atomic(self.log, encoded(self.entries, len(self.standing.audits)))
        except OSError as exc:
            if self.behind is None:
                self.warn(f"⚠ in the journal, but the log is not rewritten ({said(exc, self.log)})")
            self.behind = said(exc, self.log)
        else:
            self.behind = None

    def warn(self, message: str) -> None:
        self.say(self.style(safe(f"  {message}", 400), "warn"))

    # -- what is said --------------------------------------------------------

    def recap(self) -> list[str]:
        """Where the session stands, said on resuming: the deals closed, and the open deal's
        dealer, turn-up, declarations and tricks so far."""
        standing = self.standing
        lines = [f"  {len(standing.audits)} deal(s) recorded so far"] if standing.audits else []
        if standing.ask.stage is Stage.DEALER or not document(self.entries)["deals"]:
            return lines
        deal = document(self.entries)["deals"][-1]
        parts = [f"deal {deal['deal']}", f"dealer {deal['dealer']}"]
        if "turn_up" in deal:
            parts.append(f"turn-up {display(parse_card(deal['turn_up']))}")
        declared = [
            f"{ev['player']} {ev['action'].replace('take_', '')}"
            for ev in deal.get("events", [])
            if ev["type"] == "declare"
        ]
        parts.append(f"declared {', '.join(declared)}" if declared else "nothing declared")
        seats = _seats(standing)
        tricks = [
            f"{t.number} to {seats[t.winner]}"
            for t in _done(standing)
            if t.winner is not None and t.winner >= 0
        ]
        parts.append(f"tricks {', '.join(tricks)}" if tricks else "no trick taken")
        lines.append(safe("  " + " · ".join(parts), 400))
        return lines

    def message(self) -> str:
        ask = self.standing.ask
        head = f"deal {ask.deal} · "
        if ask.stage is Stage.DEALER:
            return f"{head}dealer [{ask.player}]> "
        if ask.stage is Stage.TURN_UP:
            return f"{head}turn-up> "
        if ask.stage is Stage.DECLARE:
            actions = "/".join(a.value.replace("take_", "") for a in ask.actions)
            return f"{head}{ask.player} declares ({actions})> "
        if ask.stage is Stage.EXCHANGE:
            return f"{head}{ask.player} exchanges (count, 0, or discard / draw)> "
        if ask.stage is Stage.TRUMP_TURN:
            return f"{head}{ask.player} turns a trump> "
        return f"{head}trick {len(_done(self.standing)) + 1} · {ask.player} plays> "

    def report(self, before: Standing, after: Standing, entry: Entry) -> None:
        """What the entry changed: tricks won, findings, a hint, the settlement."""
        same = _deal_number(before) == _deal_number(after)
        done_before = len(_done(before)) if same else 0
        if entry["kind"] == "event" and entry["event"]["type"] == "play":
            index = len(document(self.entries)["deals"][-1]["events"]) - 1
            if index in after.hints:
                self.say(self.style(f"  ⚑ {after.hints[index]}", "warn"))
            for trick in _done(after)[done_before:]:
                if trick.winner is not None and trick.winner >= 0:
                    won = trick.cards[trick.win][1]
                    who = _seats(after)[trick.winner]
                    self.say(f"  trick {trick.number} to {who} ({display(won)})")
        must = _must(after)
        if must is not None and must != _must(before):  # said once, as the deal becomes one
            self.say("  a must deal: everyone plays the hand dealt, so nobody declares")
            self.say(f"    ({must[1]})")
        old = _findings(before)
        for key, (deal, v) in _findings(after).items():
            if key not in old:
                kind = "REVOKE" if v.is_revoke else "VIOLATION"
                said = f"  ! {kind} {v.code} in deal {deal}: {safe(v.message, 400)}"
                self.say(self.style(said, "bad"))
        closing = after.ask.stage is Stage.DEALER and entry["kind"] != "deal"
        if closing and after.audits:
            self.settlement(after.audits[-1], after.hints)
        if isinstance(entry.get("seal"), str):
            shown = code(bytes.fromhex(entry["seal"]))
            number = after.audits[-1].number
            self.say(self.style(f"  code {shown}: deal {number} sealed (note it)", "title"))

    def settlement(self, audit: DealAudit, hints: dict[int, str]) -> None:
        for line in deal_lines(audit, self.style):
            self.say(line)
        if audit.stacks:
            self.say("    stacks " + ", ".join(f"{p} {n}" for p, n in audit.stacks.items()))
        for hint in hints.values():
            self.say(f"    not proved: {hint}")


_END = "\x00end"  # what ``next`` gives at the end of the lines (a line is never this)


def _deal_number(standing: Standing) -> int | None:
    """The deal in hand, or the deal just closed."""
    if standing.replay is not None:
        return standing.replay.record.number
    return standing.audits[-1].number if standing.audits else None


def _must(standing: Standing) -> tuple[int, str] | None:
    """The deal in hand and why it is a must (``why_must``); None when it is not one (or
    not known to be yet: the turn-up that makes a must by club law is still to come)."""
    replay = standing.replay
    if replay is None or not replay.result.must:
        return None
    return replay.record.number, why_must(replay)


def _seats(standing: Standing) -> tuple[str, ...]:
    if standing.replay is not None:
        return standing.replay.record.seats
    last = standing.audits[-1].result if standing.audits else None
    return last.record.seats if last is not None else standing.header.players


def _done(standing: Standing) -> list[Trick]:
    """The finished tricks of the deal in hand (or of the deal just closed)."""
    if standing.replay is not None:
        tricks = standing.replay.state.tricks
    elif standing.audits and standing.audits[-1].result is not None:
        tricks = standing.audits[-1].result.tricks
    else:
        tricks = []
    return [t for t in tricks if t.winner is not None]


def _findings(standing: Standing) -> dict[tuple[object, ...], tuple[int | None, Violation]]:
    """Every finding so far, keyed so that the same finding found again is the same key."""
    found: dict[tuple[object, ...], tuple[int | None, Violation]] = {}
    deals: Iterable[tuple[int | None, Iterable[Violation]]] = [
        (a.number, a.violations) for a in standing.audits
    ]
    if standing.replay is not None:
        deals = [*deals, (standing.replay.record.number, standing.replay.result.violations)]
    for number, violations in deals:
        for v in violations:
            found[(number, v.code, v.player, v.event, v.trick)] = (number, v)
    return found


def _described(entry: Entry) -> str:
    kind = entry["kind"]
    if kind == "event":
        ev = entry["event"]
        card = ev.get("card")
        what = display(parse_card(card)) if card else ev.get("action") or ""  # 2♣, as shown
        return f"{ev['type']} {ev.get('player', '')} {what}".replace("  ", " ").strip()
    if kind == "deal":
        return f"deal {entry['deal']} dealt by {entry['dealer']}"
    if kind == "hand":
        return f"{entry['player']}'s hand shown"
    return str(kind).replace("_", "-")
