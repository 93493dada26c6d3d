"""What the commands say about the sample logs, saved to compare two builds byte for byte.

A refactor that promises no change of behaviour (issue 52) is checked by running this on a
checkout before it and on one after, then comparing the two folders::

    python benchmarks/baseline_outputs.py CHECKOUT OUT          # save
    python benchmarks/baseline_outputs.py --compare OLD NEW     # every file that differs

For every log of CHECKOUT/sample_logs it saves ``validate`` (text and JSON), ``analyse``
JSON, ``analyse --decisions --samples 20`` JSON, ``fairness`` and ``collusion`` (text and
JSON), and ``audit``'s text into a new database; then it audits the whole folder into one
database as ``make audit`` does and saves every table and view of it through ``query
--format json``, ordered by all its columns.  Each command's stdout, stderr and exit status
go in files of their own (``NAME.stdout``, ``NAME.stderr``, ``NAME.status``).  Three
things vary between two runs of the same code and are normalised: the temporary folder's
path (``<tmp>``), the checkout's path (``<checkout>``), and the clock time a derived result
records (``computed_at``, ``<clock>``).  The build (``--version``) and each command's time
are kept in ``_version.txt`` and ``_times.json``, which the comparison leaves out.

The commands run as ``PYTHON -m loo_replay`` (this interpreter unless ``--python``) with
CHECKOUT on ``PYTHONPATH``, from CHECKOUT, with the environment as given: the compiled
build if CHECKOUT has it (see ``_version.txt``), unless ``LOO_REPLAY_PURE=1``.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_CLOCK = re.compile(r'("computed_at":)"[^"]*"')


def _normalised(data: bytes, checkout: Path, tmp: Path) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    text = text.replace(str(tmp), "<tmp>").replace(str(checkout), "<checkout>")
    return _CLOCK.sub(r'\1"<clock>"', text).encode("utf-8", "surrogateescape")


class Runner:
    """Runs the CLI of one checkout and saves what each command said."""

    def __init__(self, checkout: Path, out: Path, python: str, tmp: Path) -> None:
        self.checkout, self.out, self.python, self.tmp = checkout, out, python, tmp
        self.env = dict(os.environ, PYTHONPATH=str(checkout))
        self.times: dict[str, float] = {}

    def run(self, name: str, *args: str) -> subprocess.CompletedProcess[bytes]:
        start = time.perf_counter()
        done = subprocess.run(
            [self.python, "-m", "loo_replay", *args],
            cwd=self.checkout,
            env=self.env,
            capture_output=True,
            check=False,
        )
        self.times[name] = round(time.perf_counter() - start, 2)
        target = self.out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        for suffix, data in (("stdout", done.stdout), ("stderr", done.stderr)):
            path = target.with_name(f"{target.name}.{suffix}")
            path.write_bytes(_normalised(data, self.checkout, self.tmp))
        target.with_name(f"{target.name}.status").write_text(f"{done.returncode}\n")
        print(f"{name}: exit {done.returncode}, {self.times[name]} s", file=sys.stderr)
        return done


def save(checkout: Path, out: Path, python: str) -> None:
    out.mkdir(parents=True, exist_ok=False)
    checkout = checkout.resolve()
    with tempfile.TemporaryDirectory(prefix="baseline-") as scratch:
        tmp = Path(scratch).resolve()
        runner = Runner(checkout, out, python, tmp)
        version = runner.run("_version", "--version")
        (out / "_version.txt").write_bytes(version.stdout + version.stderr)
        for suffix in ("stdout", "stderr", "status"):
            (out / f"_version.{suffix}").unlink()
        logs = sorted(p.name for p in (checkout / "sample_logs").iterdir() if p.is_file())
        for log in logs:
            arg = f"sample_logs/{log}"
            runner.run(f"{log}/validate.text", "validate", arg)
            runner.run(f"{log}/validate.json", "validate", arg, "--format", "json")
            runner.run(f"{log}/analyse.json", "analyse", arg, "--format", "json")
            runner.run(
                f"{log}/analyse-decisions.json",
                "analyse",
                arg,
                "--decisions",
                "--samples",
                "20",
                "--format",
                "json",
            )
            for command in ("fairness", "collusion"):
                runner.run(f"{log}/{command}.text", command, arg)
                runner.run(f"{log}/{command}.json", command, arg, "--format", "json")
            (tmp / log).mkdir()
            db, reports = str(tmp / log / "loo.duckdb"), str(tmp / log / "reports")
            runner.run(f"{log}/audit.text", "audit", arg, "--db", db, "--out", reports)
        # The database `make audit` builds: the whole folder in one audit.
        (tmp / "all").mkdir()
        db, reports = str(tmp / "all" / "loo.duckdb"), str(tmp / "all" / "reports")
        runner.run("all/audit.text", "audit", "sample_logs", "--db", db, "--out", reports)
        listed = runner.run(
            "all/tables.json",
            "query",
            "--db",
            db,
            "--format",
            "json",
            "SELECT table_name FROM information_schema.tables ORDER BY table_name",
        )
        for row in json.loads(listed.stdout):
            table = row["table_name"]
            runner.run(
                f"all/table-{table}.json",
                "query",
                "--db",
                db,
                "--format",
                "json",
                f'SELECT * FROM "{table}" ORDER BY ALL',
            )
        (out / "_times.json").write_text(json.dumps(runner.times, indent=1) + "\n")


def compare(old: Path, new: Path) -> int:
    """Print every saved file that differs or is in one folder only; 1 if any."""

    def files(root: Path) -> set[str]:
        return {
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.is_file() and not p.name.startswith("_")
        }

    a, b = files(old), files(new)
    differ = sorted(n for n in a & b if not filecmp.cmp(old / n, new / n, shallow=False))
    for name in sorted(a - b):
        print(f"only in {old}: {name}")
    for name in sorted(b - a):
        print(f"only in {new}: {name}")
    for name in differ:
        print(f"differs: {name}")
    print(f"{len(a & b) - len(differ)} of {len(a | b)} files identical", file=sys.stderr)
    return 1 if differ or a != b else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="the checkout (or, with --compare, OLD)")
    parser.add_argument("second", type=Path, help="the output folder (or, with --compare, NEW)")
    parser.add_argument("--compare", action="store_true", help="compare two saved folders")
    parser.add_argument("--python", default=sys.executable, help="the interpreter to run")
    args = parser.parse_args()
    if args.compare:
        return compare(args.first, args.second)
    save(args.first, args.second, args.python)
    return 0


if __name__ == "__main__":
    sys.exit(main())
