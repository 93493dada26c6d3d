"""What the replay and the analyses say, in plain words, on the sample logs' concrete deals
(issue 55): a decision that was not the best names what it cost against the best; an
analysis cut short by a broken rule says so without jargon; a revoking player's tricks
that paid nothing say why (docs/rules.md §5.1)."""

from __future__ import annotations

from pathlib import Path

from db_helpers import ROOT, run

from loo_replay.replayer.html import replay_html
from loo_replay.replayer.steps import build_replay
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

REVOKES = "sample_logs/three-card-revokes.json"
FORFEIT = "a revoke forfeits the trick money (penalties.revoke = forfeit)"


def _report(path: str) -> SessionReport:
    item = next(iter(audited([ROOT / path])))
    assert isinstance(item, SessionReport)
    return item


def test_a_decision_not_the_best_names_what_it_cost_against_the_best() -> None:
    """Deal 24 of the club night: dan passed where taking the Miss was worth 1.35 chips on
    average and passing nothing (README's example, 100 worlds, seed 0)."""
    said = run("replay", "sample_logs/three-card-club-night.json", "--deal", "24", "--decisions")
    assert said.returncode == 0, said.stderr
    assert (
        "mistake · dan passed with 3♣ 2♥ 8♣: from where they sat, passing cost 1.4 chips on "
        "average against taking the Miss (passing lost nothing; taking the Miss won 1.4 chips)"
    ) in said.stdout
    assert (
        "eve stood with J♠ 9♥ K♥: from where they sat, standing cost 0.2 chips on average "
        "against taking the Miss (standing won 2.9 chips, looed in 16% of the possible deals; "
        "taking the Miss won 3.1 chips)"
    ) in said.stdout
    assert "they sat, passing lost nothing; " not in said.stdout  # the old wording
    assert (
        "eve played K♥ at trick 1: from where they sat, it won 2.9 chips on average; it was "
        "the best card"
    ) in said.stdout


def test_an_analysis_cut_short_says_a_rule_was_broken() -> None:
    """Deal 2 of the Pam night: ann played out of turn at trick 1."""
    said = run("analyse", "sample_logs/five-card-pam.json")
    assert (
        "    analysis stops: out-of-turn by ann at trick 1 broke a rule: the cards after it are "
        "not analysed"
    ) in said.stdout.splitlines()
    assert "not one of the rules" not in said.stdout


def test_the_replay_says_why_a_revoking_players_trick_paid_nothing(tmp_path: Path) -> None:
    """Deal 11 of the revokes night (three-card: penalties.revoke = forfeit): bob revoked at
    trick 1 and took trick 2, which paid nothing; eve's two tricks paid 3 each."""
    said = run("replay", REVOKES, "--deal", "11", "--no-analysis")
    lines = said.stdout.splitlines()
    assert "  payouts    eve 6" in lines
    why = f"bob's 1 trick paid nothing: {FORFEIT}; its share stays in the pool"
    assert f"  note: {why}" in lines
    report = _report(REVOKES)
    deal = next(d for d in report.deals if d.number == 11)
    assert build_replay(report, deal, analyse=False).unpaid() == [why]
    assert why.replace("bob", "Robert Hooke") in replay_html(report, deal)  # as the page names him


def test_a_revoke_without_a_trick_or_a_deal_without_one_says_nothing_of_it() -> None:
    """Deal 5: bob revoked and took no trick (looed); deal 1: nobody revoked."""
    report = _report(REVOKES)
    for number in (1, 5):
        deal = next(d for d in report.deals if d.number == number)
        assert build_replay(report, deal, analyse=False).unpaid() == []
