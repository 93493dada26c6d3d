"""The one table of `make bench`: every command at each size, from the results the other
benchmarks wrote: `python benchmarks/table.py`.

It reads benchmarks/results/<name>.json of three scripts and writes no figure of its own:

- ``startup`` (benchmarks/startup.py): the one log, 40 deals; medians of its runs, the
  ratio to the import floor (``python -c 'import typer, duckdb, pyarrow'``) measured in the
  same rounds, instructions under callgrind;
- ``throughput`` (benchmarks/run.py): ``validate`` and ``ingest`` from 40,000 deals, the
  fastest of its runs, the ratio to the one-core ``orjson`` floor of the same log;
- ``commands`` (benchmarks/commands.py): every command that reads a database, at 40 deals
  and from 40,000, one run each.

Each row gives wall, CPU seconds (user + system, all the command's processes), the peak
resident memory (the process tree's, summed; start-up rows have none: they are a few tens
of MB), the ratio to the floor and the instructions where they were counted.  The head
says which build ran (compiled or pure Python), how each script took its figures from its
runs (medians of 10, the fastest of 3, one run), and how the package the scripts' interpreter
imports is installed (a wheel, an editable install or a checkout on ``PYTHONPATH``).  Writes benchmarks/results/<name>.json
and <name>.md (``latest``), which docs/performance.md links.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from saving import RESULTS, result_options, save

_INSTALL = """
import importlib.metadata as m, json, loo_replay
try:
    url = json.loads(m.distribution("loo-replay").read_text("direct_url.json") or "{}")
except m.PackageNotFoundError:
    url = None
where = loo_replay.__file__
root = where.rsplit("/loo_replay/", 1)[0]
editable = url is not None and url.get("dir_info", {}).get("editable")
source = (url or {}).get("url", "?").removeprefix("file://")
if url is None or "site-packages" not in where and not (editable and root == source):
    print("a checkout on PYTHONPATH (" + root + ")")  # what runs, whatever is installed
elif editable:
    print("an editable install of " + source)
else:
    print("installed from " + url.get("url", "a wheel").rsplit("/", 1)[-1])
"""


@dataclass(frozen=True)
class Row:
    command: str
    deals: int
    wall_s: float | None  # None: instructions alone (startup.py --runs 0)
    cpu_s: float | None
    peak_rss_mb: float | None
    ratio_to_floor: float | None
    instructions: int | None
    source: str  # the results file the row is from


def measured_install() -> str:
    """How the loo_replay the benchmarks run (``python -m loo_replay``, this interpreter,
    this environment) is installed: from a wheel, editable, or a checkout on PYTHONPATH."""
    said = subprocess.run(
        [sys.executable, "-c", _INSTALL], capture_output=True, text=True, check=True
    )
    return said.stdout.strip()


def _read(folder: Path, name: str) -> dict[str, Any] | None:
    path = folder / f"{name}.json"
    return json.loads(path.read_text()) if path.exists() else None


def rows(startup: dict[str, Any] | None, throughput: dict[str, Any] | None,
         commands: dict[str, Any] | None) -> list[Row]:  # fmt: skip
    """The rows of the three results, by size, start-up first."""
    out: list[Row] = []
    if startup is not None:
        floor = next(f for f in startup["figures"] if "(the floor)" in f["step"])["wall_ms"]
        for f in startup["figures"]:
            timed = f["wall_ms"] is not None  # not with --runs 0: instructions alone
            out.append(
                Row(f["step"], 40, f["wall_ms"] / 1000 if timed else None,
                    f["cpu_ms"] / 1000 if timed else None, f.get("peak_rss_mb"),
                    f["wall_ms"] / floor if timed else None, f["instructions"], "startup")
            )  # fmt: skip
    if throughput is not None:
        for f in throughput["figures"]:
            if f["step"].startswith("floor"):
                name = "floor: orjson.loads of every line, one core"
            else:
                name = (
                    f["step"] if f["ruleset"] == "three-card" else f"{f['step']} ({f['ruleset']})"
                )
            rss = f["peak_rss_mb"] or None
            out.append(
                Row(name, f["deals"], f["seconds"], f.get("cpu_s"), rss,
                    f["ratio_to_floor"], None, "throughput")
            )  # fmt: skip
    if commands is not None:
        for r in commands["rows"]:
            out.append(
                Row(r["command"], r["deals"], r["wall_s"], r["cpu_s"], r["peak_rss_mb"],
                    r["ratio_to_floor"], r["instructions"], "commands")
            )  # fmt: skip
    return sorted(out, key=lambda r: r.deals)  # stable: each script's order within a size


def table(found: list[Row], head: str) -> str:
    lines = [
        head,
        "",
        "| deals | command | wall s | CPU s | peak RSS | × floor | instructions |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in found:
        cpu = f"{r.cpu_s:,.2f}" if r.cpu_s is not None else ""
        rss = f"{r.peak_rss_mb:,.0f} MB" if r.peak_rss_mb else ""
        ratio = f"{r.ratio_to_floor:,.1f}" if r.ratio_to_floor is not None else ""
        wall = f"{r.wall_s:,.3f}" if r.wall_s is not None else ""
        count = f"{r.instructions:,}" if r.instructions is not None else ""
        lines.append(
            f"| {r.deals:,} | `{r.command}` | {wall} | {cpu} | {rss} | {ratio} | {count} |"
        )
    return "\n".join(lines) + "\n"


def _taken(name: str, result: dict[str, Any]) -> str | None:
    """How a script's figures were taken from its runs, where its results say it."""
    if name == "startup":
        runs = result["figures"][0]["runs"]
        return f"medians of {runs} runs" if runs > 1 else f"{runs or 'no'} timed run"
    if name == "throughput":
        if "runs" not in result:
            return None  # results of before the runs were recorded
        runs = result["runs"]
        fastest = f"the fastest of {runs} runs" if runs > 1 else "one run"
        return f"{fastest}, ingest with the analysis one"
    return "one run a command"


def head(results: dict[str, dict[str, Any] | None], install: str) -> str:
    """What the table measured: each script's build, date, load before its runs and how its
    figures were taken from them, and the install."""
    said = []
    for name, result in results.items():
        if result is not None:
            load = f", load {result['load']}" if "load" in result else ""
            built = result.get("build", "?")
            date = result.get("date") or result.get("machine", {}).get("date", "?")
            taken = _taken(name, result)
            said.append(f"{name}: {built}, {date}{load}" + (f", {taken}" if taken else ""))
    return f"Every command at each size ({install}; " + "; ".join(said) + ")."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--startup", default="startup", help="startup.py's results name")
    parser.add_argument("--throughput", default="throughput", help="run.py's results name")
    parser.add_argument("--commands", default="commands", help="commands.py's results name")
    parser.add_argument("--from-dir", type=Path, default=RESULTS, metavar="DIR")
    result_options(parser, "latest")
    args = parser.parse_args()
    names = {"startup": args.startup, "throughput": args.throughput, "commands": args.commands}
    results = {key: _read(args.from_dir, name) for key, name in names.items()}
    install = measured_install()
    found = rows(results["startup"], results["throughput"], results["commands"])
    said = head(results, install)
    fields = {
        "install": install,
        "head": said,
        "sources": names,
        "rows": [asdict(r) for r in found],
    }
    save(args, fields, table(found, said))


if __name__ == "__main__":
    main()
