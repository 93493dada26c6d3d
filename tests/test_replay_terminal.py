"""``loo-replay replay`` in a terminal: golden transcripts, stepping, exit codes, errors.

The transcripts are compared byte for byte with ``tests/golden/replay/*.txt``;
regenerate them only deliberately, after reading the difference:
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_replay_terminal.py``.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from loo_replay.engine.cards import display_cards
from loo_replay.replayer.steps import DealReplay, build_replay
from loo_replay.replayer.terminal import plain, step_through, transcript
from loo_replay.run.audit import SessionReport
from tests.loo_helpers import audited

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "replay"
HOYLE = "sample_logs/hoyle-evening.jsonl"
STEP_COMMAND = (sys.executable, "-m", "loo_replay", "replay")

# name: (arguments, what the deal shows)
CASES: dict[str, tuple[str, ...]] = {
    # a clean three-card deal: the Miss taken, a turn-up, three tricks
    "three-card-clean": ("sample_logs/three-card-club-night.json", "--deal", "2"),
    # three-card with a revoke (lead-trump, docs/rules.md §3) and its penalty in the settlement
    "three-card-revoke": ("sample_logs/wrong-payouts.json", "--deal", "4"),
    # a card played out of turn: dead, the player retires (docs/rules.md §2.9)
    "three-card-out-of-turn": ("sample_logs/three-card-revokes.json", "--deal", "16"),
    # five-card Loo: exchanges with the stock, Pam, "Pam, be civil" announced
    "five-card-pam-exchanges": ("sample_logs/five-card-pam.json", "--deal", "1"),
    # Hoyle: a must in a single pool, no turn-up, a trump turned on a void
    "hoyle-must-trump-turn": (
        HOYLE,
        "--session",
        "hoyle-single-double-2026-11-24",
        "--deal",
        "1",
    ),
    # a flush ends the deal after the declarations (docs/rules.md §5.3)
    "hoyle-flush": (HOYLE, "--session", "hoyle-flushes-2026-11-24", "--deal", "9"),
    # a misdeal: the dealer's forfeit, nothing else happens (docs/rules.md §2.2)
    "hoyle-misdeal": (HOYLE, "--session", "hoyle-flushes-2026-11-24", "--deal", "13"),
    # docs/analysis.md, "The notes": eve's 2♥ lost her sure trick ("?"), an avoidable loo at the end
    "three-card-avoidable-loo": ("sample_logs/three-card-club-night.json", "--deal", "21"),
    # docs/analysis.md, "The notes": two lost tricks by one player, 2 → 1 → 0
    "three-card-two-lost-tricks": ("sample_logs/three-card-club-night.json", "--deal", "17"),
    # the same deal without the analysis: no G, no "?"
    "three-card-no-analysis": (
        "sample_logs/three-card-club-night.json",
        "--deal",
        "21",
        "--no-analysis",
    ),
}


def run(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run(
        [sys.executable, "-m", "loo_replay", "replay", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        stdin=stdin,
        timeout=300,
        env=env,
    )


def no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stdout + result.stderr


@pytest.mark.parametrize("name", sorted(CASES))
def test_piped_transcript_matches_its_golden_file(name: str) -> None:
    result = run(*CASES[name])
    no_traceback(result)
    assert result.returncode in (0, 1), result.stderr
    assert "\x1b[" not in result.stdout
    golden = GOLDEN / f"{name}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(result.stdout, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}: run with UPDATE_GOLDEN=1 once"
    assert result.stdout == golden.read_text(encoding="utf-8")


def _report(path: str, session: str | None = None) -> SessionReport:
    for item in audited([ROOT / path]):
        if isinstance(item, SessionReport) and session in (None, item.id):
            return item
    raise AssertionError(f"no session in {path}")


def _sample_replays() -> Iterator[tuple[SessionReport, DealReplay]]:
    for item in audited([ROOT / "sample_logs"]):
        if isinstance(item, SessionReport):
            for deal in item.deals:
                if deal.status != "rejected":
                    yield item, build_replay(item, deal, by_name=False)


def test_steps_mark_every_finding_of_the_audit_once_for_every_sample_deal() -> None:
    """The replayer's engine run agrees with the validator's, deal by deal."""
    count = 0
    for report, rp in _sample_replays():
        count += 1
        marked = [v for step in rp.steps for v in step.findings]
        assert sorted(map(repr, marked)) == sorted(map(repr, rp.audit.violations)), (
            report.id,
            rp.number,
        )
        result = rp.audit.result
        assert result is not None
        assert rp.steps[-1].tricks_won == tuple(result.tricks_won)
        for step in rp.steps:
            if step.findings and step.kind == "play":
                assert all(v.event == step.event for v in step.findings)
    assert count > 150


def test_each_judged_play_is_on_the_table_and_was_legal_or_marked() -> None:
    """docs/log-format.md: every card is judged against the legal set shown beside it."""
    for _, rp in _sample_replays():
        for step in rp.steps:
            if step.kind != "play" or not step.judged or step.card is None:
                continue
            assert step.trick is not None
            assert (step.seat, step.card) in [(s, c) for s, c, _ in step.trick.plays]
            if step.played_legal is not None:
                legal = step.card in step.played_legal
                revoked = any(v.is_revoke for v in step.findings)
                assert legal != revoked, (rp.session_id, rp.number, step.text)


def test_legal_cards_shown_for_the_player_on_turn_are_in_his_hand() -> None:
    report = _report("sample_logs/wrong-payouts.json")
    rp = build_replay(report, report.deals[3], by_name=False)
    begin = next(s for s in rp.steps if s.kind == "begin")
    assert begin.on_turn == 0 and display_cards(begin.legal) == "6♠ 9♠"  # ann must lead a trump
    for step in rp.steps:
        if step.on_turn is not None:
            assert step.legal and set(step.legal) <= set(step.hands[step.on_turn])


def test_step_mode_stops_on_q_and_at_the_end_of_input() -> None:
    report = _report("sample_logs/wrong-payouts.json")
    rp = build_replay(report, report.deals[3], by_name=False)
    out: list[str] = []
    answers = iter(["", "", "q"])
    step_through(rp, plain, out.append, lambda prompt: next(answers))
    text = "\n".join(out)
    assert "#0   ann takes the Miss" in text and "#1   bob plays" in text
    assert "#2" not in text and "Settlement" not in text
    assert "to play" not in text  # no one is on turn during the declarations

    out.clear()

    def eof(_prompt: str) -> str:
        raise EOFError

    step_through(rp, plain, out.append, eof)
    assert out[-1] == "" and "Declarations" not in "\n".join(out)


def test_step_mode_runs_to_the_settlement_showing_who_is_to_play() -> None:
    report = _report("sample_logs/wrong-payouts.json")
    rp = build_replay(report, report.deals[3], by_name=False)
    out: list[str] = []
    step_through(rp, plain, out.append, lambda prompt: "")
    text = "\n".join(out)
    assert "to play: ann, legal 6♠ 9♠" in text
    assert "hands: ann* 6♠ J♣ 9♠" in text
    assert (
        "  pool       6 at the start, 22 carried to the next deal\n"
        "  note: ann's 2 tricks paid nothing: a revoke forfeits the trick money "
        "(penalties.revoke = forfeit); their shares stay in the pool\n"
        "  no safe trick: bob"
    ) in text
    # docs/analysis.md, "The notes": after the settlement
    assert text.rstrip().endswith("and they were looed")


def test_step_flag_in_a_terminal_waits_for_enter_and_quits_on_q() -> None:
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [*STEP_COMMAND, "sample_logs/wrong-payouts.json", "--deal", "4", "--step"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
        )
        os.close(slave)
        os.write(master, b"\n\nq\n")
        out, err = proc.communicate(timeout=120)
    finally:
        os.close(master)
    text = out.decode("utf-8")
    assert proc.returncode == 1, err  # the deal has a violation
    assert "Enter: next · q: quit" in text
    assert "#1   bob plays" in text and "#2" not in text
    assert "Settlement" not in text and "\x1b[" not in text


def test_step_flag_without_a_terminal_prints_everything_with_a_note() -> None:
    result = run("sample_logs/three-card-club-night.json", "--deal", "2", "--step")
    no_traceback(result)
    assert result.returncode == 0
    assert "needs a terminal" in result.stderr
    assert "Settlement: played out" in result.stdout


def test_clean_deal_exits_0_and_a_deal_with_findings_exits_1() -> None:
    assert run("sample_logs/three-card-club-night.json", "--deal", "2").returncode == 0
    result = run("sample_logs/wrong-payouts.json", "--deal", "4")
    assert result.returncode == 1
    assert "VIOLATION lead-trump" in result.stdout and result.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            (HOYLE, "--deal", "1"),
            "loo-replay: sample_logs/hoyle-evening.jsonl holds 3 sessions "
            "(hoyle-single-double-2026-11-24, hoyle-irish-2026-11-24, hoyle-flushes-2026-11-24): "
            "choose one with --session\n",
        ),
        (
            (HOYLE, "--session", "nope", "--deal", "1"),
            "loo-replay: sample_logs/hoyle-evening.jsonl holds no session 'nope' (it holds "
            "hoyle-single-double-2026-11-24, hoyle-irish-2026-11-24, hoyle-flushes-2026-11-24)\n",
        ),
        (
            ("sample_logs/three-card-club-night.json", "--deal", "99"),
            "loo-replay: session club-night-2026-11-20 has no deal 99 (deals 1 to 24)\n",
        ),
        (
            ("sample_logs/no-such-file.json", "--deal", "1"),
            "loo-replay: sample_logs/no-such-file.json: no such file or directory\n",
        ),
    ],
)
def test_bad_usage_is_one_sentence_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    no_traceback(result)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == message


def test_rejected_deal_shows_its_log_errors_and_exits_1() -> None:
    result = run("sample_logs/broken-deals.json", "--deal", "3")
    no_traceback(result)
    assert result.returncode == 1
    assert result.stdout == ""
    first, *errors = result.stderr.splitlines()
    assert first == (
        "loo-replay: deal 3 of session broken-deals-2026-11-21 was rejected (a log error), "
        "so it cannot be replayed:"
    )
    assert errors and all(e.startswith("  error /deals/2/") for e in errors)
    assert "but does not hold it" in result.stderr


def test_html_option_writes_the_page_and_prints_no_transcript(tmp_path: Path) -> None:
    page = tmp_path / "deal.html"
    result = run("sample_logs/wrong-payouts.json", "--deal", "4", "--html", str(page))
    no_traceback(result)
    assert result.returncode == 1  # the deal has a violation
    assert result.stdout == ""
    assert result.stderr == f"wrote deal 4 of session wrong-payouts-2026-11-27 to {page}\n"
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_html_to_an_unwritable_place_is_one_sentence(tmp_path: Path) -> None:
    result = run(
        "sample_logs/wrong-payouts.json", "--deal", "4", "--html", str(tmp_path / "no" / "x.html")
    )
    no_traceback(result)
    assert result.returncode == 2
    assert result.stderr.startswith("loo-replay: cannot write ")
    assert len(result.stderr.splitlines()) == 1


def test_rules_from_the_command_line_change_the_replay() -> None:
    """--set works as for validate: without lead.trump_if the revoke is gone."""
    result = run("sample_logs/wrong-payouts.json", "--deal", "4", "--set", "lead.trump_if=0")
    no_traceback(result)
    assert "lead-trump" not in result.stdout
    assert "legal 6♠ J♣ 9♠" in result.stdout


def test_replay_marks_each_analysed_card_with_the_engines_guarantee() -> None:
    """docs/analysis.md, "What a player can make sure of": G before each card is the analysis's ``before``; "?" exactly on the
    cards with ``after < before``, for every sample deal."""
    marked = 0
    for _item, rp in _sample_replays():
        assert rp.marks is not None
        lines = "\n".join(transcript(rp))
        for step in rp.steps:
            mark = rp.mark(step)
            if mark is None:
                continue
            lost = mark.after < mark.before
            assert (mark.lost is not None) == lost
            if lost:
                marked += 1
                assert f"? lost trick: {mark.lost}" in lines
    assert marked >= 3


def test_skipped_deal_says_why_it_is_not_analysed() -> None:
    """docs/analysis.md, "How it works": a flush ends the deal before play, so it is not analysed."""
    result = run(HOYLE, "--session", "hoyle-flushes-2026-11-24", "--deal", "9")
    no_traceback(result)
    assert "Analysis: not analysed: a flush ended the deal before play" in result.stdout
    assert " · G " not in result.stdout
