"""A huge file commits at session boundaries every TRANSACTION_DEALS deals (issue 8:
memory must not grow with the input), and loads exactly what one transaction would."""

from __future__ import annotations

from pathlib import Path

import pytest
from db_helpers import SAMPLES, dump

from loo_replay.db import ingest as ingest_module
from loo_replay.db.ingest import ingest
from loo_replay.db.load import Loader
from loo_replay.rulesets import RuleChoice

LOG = SAMPLES / "hoyle-evening.jsonl"  # three sessions, one a line


def test_big_file_commits_at_session_boundaries_and_loads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tmp_path / "whole.duckdb"
    ingest([LOG], whole, RuleChoice(), piece_bytes=1)  # a piece a session, one transaction
    commits: list[int] = []
    checkpointed: list[bool] = []
    original = Loader.commit

    def counting(self: Loader, last: bool = False) -> None:
        commits.append(self.counts.deals)
        checkpointed.append(last)
        original(self, last)

    monkeypatch.setattr(Loader, "commit", counting)
    monkeypatch.setattr(ingest_module, "TRANSACTION_DEALS", 1)
    split = tmp_path / "split.duckdb"
    ingest([LOG], split, RuleChoice(), piece_bytes=1)
    assert len(commits) == 3  # after each of the three sessions, the last closing the file
    assert commits == sorted(commits) and commits[-1] == 56
    # only the load's last commit goes straight into the file (``Loader.commit``)
    assert checkpointed == [False, False, True]
    assert dump(split) == dump(whole)
