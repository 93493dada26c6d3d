"""One line instead of a traceback (docs/limits.md, "Interrupts and errors"): a Dask
scheduler nobody listens on, a seed beyond 64 bits, and a share of deals that is not a
number, each given to the real CLI."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest
from db_helpers import SAMPLES, run

from loo_replay.run.workers import SCHEDULER_TIMEOUT


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="no Dask")
def test_a_dead_scheduler_is_named_in_one_line_within_seconds() -> None:
    began = time.monotonic()
    result = run("validate", SAMPLES, "--scheduler", "tcp://127.0.0.1:9")
    assert time.monotonic() - began < SCHEDULER_TIMEOUT + 10
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith(
        "loo-replay: --scheduler tcp://127.0.0.1:9: no Dask scheduler answers there"
    )
    assert len([line for line in lines if "scheduler" in line]) == 1


@pytest.mark.parametrize("seed", [str(10**30), str(-(10**30))])
def test_a_seed_beyond_64_bits_is_refused_by_name(seed: str) -> None:
    result = run("simulate", "--deals", 1, "--seed", seed)
    assert result.returncode == 2
    assert f"Invalid value for '--seed': {seed} is not a 64-bit integer" in result.stderr


@pytest.mark.parametrize("seed", ["-1", str(2**63 - 1)])
def test_any_64_bit_seed_works(seed: str, tmp_path: Path) -> None:
    result = run("simulate", "--deals", 1, "--seed", seed, "--out", tmp_path / "g.json")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "g.json").stat().st_size > 0


@pytest.mark.parametrize("option", ["--violations", "--corrupt"])
@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1.5"])
def test_a_share_that_is_not_a_number_between_0_and_1_is_refused(option: str, value: str) -> None:
    result = run("simulate", "--deals", 1, option, value)
    assert result.returncode == 2
    assert f"invalid value for '{option}': {value.lower()}" in result.stderr.lower()
    assert result.stdout == ""


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_an_alpha_that_is_not_a_probability_is_refused(value: str) -> None:
    result = run("fairness", SAMPLES, "--alpha", value)
    assert result.returncode == 2
    assert "Invalid value for --alpha" in result.stderr
