"""The options of docs/rules.md §7 as one frozen dataclass, and their validation.

An option's dotted name (``follow.void``) maps to the attribute with the dot
replaced (``follow_void``).  Values are checked against ``OPTION_SPECS``;
every error names the option and lists what it accepts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal, get_args

import cython

from loo_replay.engine.records import record

# The values of each choice option, as types: a misspelt value is a mypy error, and
# ``OPTION_SPECS`` takes its choices from here, so the two cannot drift.
HandSize = Literal[3, 5]
Method = Literal["turn_up", "on_void", "first_lead"]
MethodInMust = Literal[Method, "same"]
AnteBy = Literal["dealer", "all"]
LooKind = Literal["limited", "unlimited"]
Scope = Literal["active", "everyone"]
Must = Literal["never", "single", "single_except_first"]
TopTrump = Literal["off", "first", "every"]
HighestTrump = Literal["never", "first", "always", "two_players"]
TrumpIf = Literal[0, 1, 2]
Void = Literal["trump", "overtrump", "any"]
PamCivil = Literal["off", "announced", "always"]
FlushKind = Literal["none", "trumps", "any_suit"]
FlushPools = Literal["all", "double"]
FlushWhen = Literal["declared", "dealt"]
FlushRank = Literal["elder", "pam_then_elder", "trumps_then_cards"]
FlushPay = Literal["loo", "ante"]
RevokeSettlement = Literal["forfeit", "divide"]
Redeal = Literal["same_dealer", "next_dealer"]


@record(slots=True)
class OptionSpec:
    """What one option accepts: a tuple of choices, or bool, or int >= minimum; and its
    default, the value a ruleset that does not name the option takes (docs/rules.md, "The
    built-in rulesets": three-card's, the default ruleset)."""

    kind: str  # "choice" | "bool" | "int"
    choices: tuple[Any, ...] = ()
    minimum: int = 0
    default: Any = None
    meaning: str = ""

    def describe(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "int":
            return f"an integer >= {self.minimum}"
        return " | ".join(str(c) for c in self.choices)

    def check(self, name: str, value: object) -> Any:
        """The value if valid for this option; ``OptionError`` otherwise."""
        ok: bool
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "int":
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= self.minimum
        else:
            ok = not isinstance(value, bool) and value in self.choices
            if ok:  # the choice itself: compared with the engine's own, it is the same object
                value = self.choices[self.choices.index(value)]
        if not ok:
            raise OptionError(f"option {name} cannot be {value!r}; it takes {self.describe()}")
        return value


class OptionError(ValueError):
    """An unknown option name or a value the option does not accept."""


METHODS: tuple[Method, ...] = get_args(Method)

OPTION_SPECS: dict[str, OptionSpec] = {
    "deal.hand_size": OptionSpec(
        "choice", get_args(HandSize), default=3, meaning="cards per hand and tricks per deal"
    ),
    "deal.miss": OptionSpec(
        "bool", default=True, meaning="an extra hand (Miss) is dealt, except in a must deal"
    ),
    "deal.trump": OptionSpec("choice", METHODS, default="turn_up", meaning="how trumps are fixed"),
    "deal.trump_in_must": OptionSpec(
        "choice",
        get_args(MethodInMust),
        default="same",
        meaning="how trumps are fixed in a must deal",
    ),
    "deal.exchange": OptionSpec(
        "bool", default=False, meaning="active players may exchange with the stock"
    ),
    "deal.pam": OptionSpec("bool", default=False, meaning="the jack of clubs is the highest trump"),
    "stakes.ante": OptionSpec("int", minimum=1, default=3, meaning="a single"),
    "stakes.ante_by": OptionSpec(
        "choice", get_args(AnteBy), default="dealer", meaning="who antes each deal"
    ),
    "stakes.loo": OptionSpec(
        "choice", get_args(LooKind), default="limited", meaning="what a looed player pays"
    ),
    "stakes.loo_amount": OptionSpec("int", default=3, meaning="limited loo"),
    "stakes.loo_cap": OptionSpec("int", default=0, meaning="unlimited loo maximum, 0 = none"),
    "stakes.loo_scope": OptionSpec(
        "choice", get_args(Scope), default="active", meaning="who can be looed"
    ),
    "declare.must": OptionSpec(
        "choice",
        get_args(Must),
        default="single_except_first",
        meaning="which single pools are musts",
    ),
    "declare.club_law": OptionSpec("bool", default=False, meaning="a club turned up makes a must"),
    "declare.last_must_play_single": OptionSpec(
        "bool",
        default=False,
        meaning="single pool passed round: last non-dealer and dealer must play",
    ),
    "declare.dealer_defends": OptionSpec(
        "bool",
        default=True,
        meaning="against a lone player the dealer must play, take Miss or defend",
    ),
    "lead.top_trump": OptionSpec(
        "choice", get_args(TopTrump), default="every", meaning="lead the top trump"
    ),
    "lead.highest_trump": OptionSpec(
        "choice", get_args(HighestTrump), default="two_players", meaning="lead the highest trump"
    ),
    "lead.trump_if": OptionSpec(
        "choice", get_args(TrumpIf), default=2, meaning="holding N trumps, lead one"
    ),
    "lead.trump_after_trick": OptionSpec(
        "bool", default=True, meaning="the winner of a trick leads a trump"
    ),
    "follow.head": OptionSpec(
        "bool", default=True, meaning="following suit, head the trick if able"
    ),
    "follow.void": OptionSpec(
        "choice",
        get_args(Void),
        default="overtrump",
        meaning="what a player void in the suit led plays",
    ),
    "follow.pam_civil": OptionSpec(
        "choice", get_args(PamCivil), default="off", meaning="Pam, be civil to the ace of trumps"
    ),
    "follow.pam_civil_strict": OptionSpec(
        "bool", default=False, meaning="Pam barred unless it is the last card"
    ),
    "flush.kind": OptionSpec(
        "choice", get_args(FlushKind), default="none", meaning="what is a flush"
    ),
    "flush.pools": OptionSpec(
        "choice", get_args(FlushPools), default="all", meaning="pools in which flushes count"
    ),
    "flush.when": OptionSpec(
        "choice", get_args(FlushWhen), default="declared", meaning="when flushes are found"
    ),
    "flush.pam_wild": OptionSpec(
        "bool", default=False, meaning="Pam completes a flush of any suit"
    ),
    "flush.rank": OptionSpec(
        "choice", get_args(FlushRank), default="elder", meaning="which flush wins"
    ),
    "flush.looes": OptionSpec(
        "choice", get_args(Scope), default="active", meaning="who a flush looes"
    ),
    "flush.pay": OptionSpec(
        "choice", get_args(FlushPay), default="loo", meaning="what a player looed by a flush pays"
    ),
    "flush.exempt_pam": OptionSpec(
        "bool", default=False, meaning="the holder of Pam pays nothing to a flush"
    ),
    "penalties.revoke": OptionSpec(
        "choice", get_args(RevokeSettlement), default="forfeit", meaning="revoke settlement"
    ),
    "penalties.revoke_amount": OptionSpec("int", default=12, meaning="chips a revoke costs"),
    "penalties.out_of_turn": OptionSpec(
        "int", default=3, meaning="chips a card played out of turn costs"
    ),
    "penalties.declare_out_of_turn": OptionSpec(
        "int", default=3, meaning="chips a declaration out of turn costs"
    ),
    "penalties.misdeal": OptionSpec(
        "int", default=3, meaning="chips the dealer forfeits for a misdeal"
    ),
    "penalties.misdeal_redeal": OptionSpec(
        "choice", get_args(Redeal), default="same_dealer", meaning="who deals after a misdeal"
    ),
}


@cython.dataclasses.dataclass(frozen=True)
@cython.cclass
class Options:
    """Every option of docs/rules.md §7; attribute = dotted name with ``_`` for ``.``.

    Compiled, an extension type whose fields ``options.pxd`` declares: the engine reads
    them as struct members."""

    deal_hand_size: HandSize
    deal_miss: bool
    deal_trump: Method
    deal_trump_in_must: MethodInMust
    deal_exchange: bool
    deal_pam: bool
    stakes_ante: int
    stakes_ante_by: AnteBy
    stakes_loo: LooKind
    stakes_loo_amount: int
    stakes_loo_cap: int
    stakes_loo_scope: Scope
    declare_must: Must
    declare_club_law: bool
    declare_last_must_play_single: bool
    declare_dealer_defends: bool
    lead_top_trump: TopTrump
    lead_highest_trump: HighestTrump
    lead_trump_if: TrumpIf
    lead_trump_after_trick: bool
    follow_head: bool
    follow_void: Void
    follow_pam_civil: PamCivil
    follow_pam_civil_strict: bool
    flush_kind: FlushKind
    flush_pools: FlushPools
    flush_when: FlushWhen
    flush_pam_wild: bool
    flush_rank: FlushRank
    flush_looes: Scope
    flush_pay: FlushPay
    flush_exempt_pam: bool
    penalties_revoke: RevokeSettlement
    penalties_revoke_amount: int
    penalties_out_of_turn: int
    penalties_declare_out_of_turn: int
    penalties_misdeal: int
    penalties_misdeal_redeal: Redeal

    @classmethod
    def from_dotted(cls, values: Mapping[str, object]) -> Options:
        """Build from a mapping of dotted names, checking every value; an option it does not
        name takes its default (``OptionSpec.default``), so that a new option needs no edit
        of the rulesets that keep it."""
        merged = {n: values.get(n, spec.default) for n, spec in OPTION_SPECS.items()}
        merged.update(values)
        checked = {n.replace(".", "_"): check_option(n, v) for n, v in merged.items()}
        return cls(**checked)

    def override(self, values: Mapping[str, object]) -> Options:
        """A copy with some options changed (dotted names); checks each."""
        changes = {n.replace(".", "_"): check_option(n, v) for n, v in values.items()}
        return dataclasses.replace(self, **changes)

    def dotted(self) -> dict[str, object]:
        return {n: getattr(self, n.replace(".", "_")) for n in OPTION_SPECS}


def option_spec(name: str) -> OptionSpec:
    spec = OPTION_SPECS.get(name)
    if spec is None:
        raise OptionError(f"unknown option {name!r}; options are: {', '.join(OPTION_SPECS)}")
    return spec


def check_option(name: str, value: object) -> Any:
    return option_spec(name).check(name, value)


def parse_option_text(name: str, text: str) -> Any:
    """The value of ``--set name=text``: ints, true/false and words as the option needs."""
    spec = option_spec(name)
    lowered = text.strip().lower()
    value: object = text.strip()
    if spec.kind == "bool" and lowered in ("true", "false"):
        value = lowered == "true"
    elif spec.kind == "int" or (spec.choices and isinstance(spec.choices[0], int)):
        try:
            value = int(lowered)
        except ValueError:
            value = text
    return spec.check(name, value)
