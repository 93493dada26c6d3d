"""Installs loo-replay as a user would and checks it runs compiled and agrees with the checkout.

``make check-install`` (several minutes on two cores): builds the sdist and, from it, the
wheel (``python -m build``, in its own isolated build environment), installs the wheel into
a fresh virtual environment outside the checkout, and ``pip install``s the checkout itself
into a second one; then, from a folder outside the checkout, each installed program must
say ``compiled`` in ``--version`` and give the same bytes as the checkout's own build for
``validate``, ``analyse`` and ``audit`` (its summary and the loaded database's ``stats``)
of sample_logs/, and for ``bundle`` and ``verify`` of an evidence bundle; and each must
verify the bundle the checkout made, in a folder of its own (docs/evidence.md).  Any
difference is printed and the script exits 1.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
CHECKOUT = ROOT / ".venv" / "bin" / "loo-replay"


def step(what: str) -> None:
    print(f"check-install: {what}", flush=True)


def run(command: list[str | Path], cwd: Path, ok: tuple[int, ...] = (0,)) -> str:
    """The command's standard output; its exit status must be one of ``ok``."""
    done = subprocess.run(list(map(str, command)), capture_output=True, text=True, cwd=cwd)
    if done.returncode not in ok:
        sys.exit(
            f"check-install: FAILED: {' '.join(map(str, command))} exited {done.returncode}\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done.stdout


def outputs(program: Path, work: Path) -> dict[str, str]:
    """What the program says about sample_logs/, run from ``work``."""
    work.mkdir(parents=True, exist_ok=True)
    found = (0, 1)  # the sample logs hold findings
    return {
        "validate": run([program, "validate", SAMPLES, "--format", "json"], work, found),
        "analyse": run([program, "analyse", SAMPLES, "--format", "json"], work, found),
        "audit": run(
            [program, "audit", SAMPLES, "--db", "loo.duckdb", "--out", "reports"], work, found
        ),
        "stats": run([program, "stats", "--db", "loo.duckdb"], work),
        "bundle": run(
            [program, "bundle", SAMPLES / "wrong-payouts.json", "--out", "case.zip"], work
        ),
        "verify": run([program, "verify", "case.zip"], work),
    }


def installed(name: str, requirement: str | Path, tmp: Path) -> Path:
    """A fresh virtual environment with ``requirement`` pip-installed: its loo-replay."""
    env = tmp / name
    venv.create(env, with_pip=True)
    step(f"pip install {requirement} into a fresh environment ({name})")
    run([env / "bin" / "python", "-m", "pip", "install", "-q", requirement], tmp)
    return env / "bin" / "loo-replay"


def compare(name: str, program: Path, expected: dict[str, str], tmp: Path) -> list[str]:
    problems = []
    version = run([program, "--version"], tmp)
    if ", compiled (" not in version:
        problems.append(f"{name}: --version says {version.strip()!r}, not compiled")
    for command, text in outputs(program, tmp / f"{name}-work").items():
        if text != expected[command]:
            diff = difflib.unified_diff(
                expected[command].splitlines(), text.splitlines(), "checkout", name, lineterm=""
            )
            problems.append(f"{name}: {command} differs:\n" + "\n".join(list(diff)[:40]))
    # The checkout's bundle, moved to a folder of this install's own, verifies here too.
    theirs = tmp / f"{name}-verifies" / "checkout-case.zip"
    theirs.parent.mkdir()
    shutil.copyfile(tmp / "checkout-work" / "case.zip", theirs)
    said = run([program, "verify", theirs.name], theirs.parent, ok=(0, 1))
    if not said.endswith(f"{theirs.name}: verified\n"):
        problems.append(f"{name}: the checkout's bundle does not verify:\n{said}")
    return problems


def main() -> int:
    os.environ.setdefault("SOURCE_DATE_EPOCH", "1700000000")  # the bundles' dates
    if not CHECKOUT.exists():
        sys.exit("check-install: run `make audit` first: the checkout's build is the reference")
    with tempfile.TemporaryDirectory(prefix="loo-check-install-") as name:
        tmp = Path(name)
        step("the checkout's own answers, the reference")
        expected = outputs(CHECKOUT, tmp / "checkout-work")
        step("python -m build: the sdist, then the wheel from it (compiles; a few minutes)")
        run([sys.executable, "-m", "build", "--outdir", tmp / "dist", ROOT], tmp)
        (wheel,) = (tmp / "dist").glob("*.whl")
        problems = compare("wheel", installed("wheel", wheel, tmp), expected, tmp)
        problems += compare("pip-install-dot", installed("dot", ROOT, tmp), expected, tmp)
    if problems:
        print("\n\n".join(problems), file=sys.stderr)
        print(f"check-install: FAILED ({len(problems)} difference(s))", file=sys.stderr)
        return 1
    step("OK: the wheel and `pip install .` run compiled and agree with the checkout")
    return 0


if __name__ == "__main__":
    sys.exit(main())
