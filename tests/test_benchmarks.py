"""The benchmark command (docs/performance.md) runs end to end, and docs/performance.md carries
the table of the latest results it wrote."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from bench_helpers import run_benchmark

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "run.py"
STEPS = [
    "floor (orjson, 1 core)",
    "validate --jobs 1",
    "validate --jobs 2",
    "ingest --jobs 2 --no-analysis",
    "ingest --jobs 2",
]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_run", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_command_measures_every_step_and_writes_json_and_the_table(
    tmp_path: Path,
) -> None:
    args = ["--sizes", "250", "--rulesets", "three-card", "--data", str(tmp_path / "data")]
    args += ["--callgrind-deals", "0"]  # minutes under valgrind; the benchmark counts them
    # One run a step, not three: the fastest-of-runs rule is the next test's, on a cheap command.
    args += ["--runs", "1"]
    result, written = run_benchmark("run.py", tmp_path, *args)
    figures = written["figures"]
    assert [f["step"] for f in figures] == STEPS
    assert all(f["deals"] == 300 and f["seconds"] > 0 for f in figures)  # 250: three sessions
    assert all(f["peak_rss_mb"] > 0 for f in figures[1:])  # every command's process measured
    assert all(f["cpu_s"] > 0 for f in figures[1:])  # and the CPU of its processes
    floor = figures[0]["seconds"]  # the least of every floor timed beside the steps
    for f in figures:  # each ratio to that floor, within the rounding of the three figures
        ratio = f["ratio_to_floor"]
        assert abs(ratio * floor - f["seconds"]) <= 0.0005 * (1 + ratio) + 0.005 * floor, f
    assert written["machine"]["cpus"] >= 1
    # issue 38: which build the figures are of, as --version says it
    version = subprocess.run(
        [sys.executable, "-m", "loo_replay", "--version"], capture_output=True, text=True
    ).stdout
    assert written["build"] in (
        "compiled",
        "compiled, with its profile",
        "compiled, with a partly stale profile",
    ) or (written["build"].startswith("pure Python (") and "pure Python (" in version)
    assert f"build: {written['build']}" in result.stdout.splitlines()
    log = tmp_path / "data" / "three-card-300.jsonl"
    assert len(log.read_bytes().splitlines()) == 3
    bench = _bench()
    table = (tmp_path / "t.md").read_text()
    assert table == bench.table([bench.Figure(**f) for f in figures])
    assert table.count("\n") == 2 + len(STEPS)
    # the one table's head: the build, the load and how the figures were taken from the runs
    assert written["runs"] == 1 and written["load"].count(", ") == 2
    args = ["--from-dir", str(tmp_path), "--throughput", "t", "--startup", "-", "--commands", "-"]
    _, one = run_benchmark("table.py", tmp_path / "one", *args)
    assert [r["command"] for r in one["rows"]][1:] == STEPS[1:]
    said = f"throughput: {written['build']}, {written['machine']['date']}, load {written['load']}"
    assert one["head"].endswith(f"; {said}, one run, ingest with the analysis one).")


def test_a_timed_step_runs_afresh_each_time_keeps_the_largest_peak_memory_and_times_the_floor_before_each_run(
    tmp_path: Path,
) -> None:
    bench = _bench()
    commands: list[list[str]] = []

    def command() -> list[str]:  # called afresh for each run, as an ingest's fresh file is
        size = 40 if commands else 4  # MB the run holds: the first run takes the least
        commands.append([sys.executable, "-c", f"b = bytearray({size} << 20); b[-1] = 1"])
        return commands[-1]

    log = tmp_path / "log.jsonl"
    log.write_bytes(b'{"deals": []}\n' * 1000)
    floors = [1.0]
    seconds, peak, cpu = bench.best(command, 3, log, floors)
    assert len(commands) == 3
    assert peak > 40 and seconds > 0 and cpu > 0  # the largest run's memory, not the first's
    assert len(floors) == 4 and all(0 < f < 1.0 for f in floors[1:])  # one floor a run


def test_the_throughput_results_table_is_the_benchmarks() -> None:
    results = ROOT / "benchmarks" / "results"
    figures = json.loads((results / "throughput.json").read_text())["figures"]
    bench = _bench()
    table = (results / "throughput.md").read_text()
    assert table == bench.table([bench.Figure(**f) for f in figures])
