"""Profile-guided build of the compiled part (docs/performance.md, "Profile-guided build").

``make pgo`` runs this after the editable install has compiled setup.py's ``COMPILED``
modules (opt-in: it takes several minutes on two cores).  It compiles the same C (Cython's output in ``build/cython``) again,
instrumented; audits and loads a training corpus simulated here (never the
benchmark's); then compiles it a third time with the profile, so that gcc lays
the hot paths out for the instruction cache and the branches as they go.  The
modules compute the same things, byte for byte (the tests compare them with the
pure-Python source).  Where anything fails (no compiler, a training run that
breaks), the install's own build is put back and the install goes on.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "build" / "cython"  # setup.py's cythonize(build_dir=...)
SUFFIX = str(sysconfig.get_config_var("EXT_SUFFIX"))
# The rulesets the corpus is simulated under: three- and five-card hands, Irish exchanges,
# flushes, unlimited loo, Pam; violations and corrupted records are injected.
RULESETS = ("three-card", "five-card", "hoyle-irish", "hoyle-flushes", "hoyle-unlimited")
GENERATE = ["-fprofile-generate", "-fprofile-update=prefer-atomic"]
USE = ["-fprofile-use", "-fprofile-partial-training", "-Wno-missing-profile"]


def modules() -> list[tuple[Path, Path]]:
    """(C source, installed extension) of every module the install compiled."""
    pairs = []
    for source in sorted(GENERATED.rglob("*.c")):
        module = source.relative_to(GENERATED).with_suffix("")
        built = ROOT / module.parent / (module.name + SUFFIX)
        if built.is_file():
            pairs.append((source, built))
    return pairs


def compile_all(pairs: list[tuple[Path, Path]], flags: list[str]) -> None:
    """Each source compiled to its module's place, as many at a time as there are cores.
    The profile files are named after the output path, the same in both compilations."""
    cc = shlex.split(os.environ.get("CC", "gcc"))  # may carry flags: "gcc -pthread"
    include = sysconfig.get_paths()["include"]

    def one(pair: tuple[Path, Path]) -> None:
        source, built = pair
        command = [*cc, "-shared", "-fPIC", "-O3", "-fwrapv", "-DNDEBUG", f"-I{include}"]
        command += [*flags, "-Wno-unused-function", "-o", str(built), str(source)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        list(pool.map(one, pairs))


def train(work: Path) -> None:
    """The hot paths as users run them: validate and ingest (with and without the
    double-dummy analysis) over simulated sessions."""
    env = {k: v for k, v in os.environ.items() if k != "LOO_REPLAY_PURE"}

    def cli(*args: str | Path, ok: tuple[int, ...] = (0, 1)) -> None:
        command = [sys.executable, "-m", "loo_replay", *map(str, args)]
        done = subprocess.run(command, env=env, cwd=work, capture_output=True)
        if done.returncode not in ok:
            raise RuntimeError(f"{' '.join(command[2:])}: {done.stderr.decode()[-500:]}")

    logs = []
    for seed, ruleset in enumerate(RULESETS, start=1):
        log = work / f"{ruleset}.jsonl"
        cli("simulate", "--ruleset", ruleset, "--players", "6", "--deals", "40", "--sessions",
            "6", "--seed", str(seed), "--violations", "0.2", "--corrupt", "0.05", "--out", log)  # fmt: skip
        logs.append(log)
    cli("validate", *logs, "--format", "json", "--jobs", "1")
    cli("validate", *logs, "--jobs", "1")
    cli("ingest", *logs, "--db", work / "plain.duckdb", "--jobs", "1", "--no-analysis")
    cli("ingest", logs[0], "--db", work / "analysed.duckdb", "--jobs", "1")


def main() -> int:
    pairs = modules()
    if not pairs:
        print("pgo: no compiled modules (pure-Python install); nothing to do")
        return 0
    with tempfile.TemporaryDirectory(prefix="loo-pgo-") as tmp:
        saved = Path(tmp, "saved")
        for _, built in pairs:
            kept = saved / built.relative_to(ROOT)
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, kept)
        try:
            print(f"pgo: compiling {len(pairs)} modules instrumented (1-2 min)", flush=True)
            compile_all(pairs, GENERATE)
            (work := Path(tmp, "train")).mkdir()
            print("pgo: a training run of validate and ingest over simulated games", flush=True)
            train(work)
            print("pgo: compiling them again with the profile (1-2 min)", flush=True)
            compile_all(pairs, USE)
        except (OSError, subprocess.CalledProcessError, RuntimeError) as exc:
            detail = (
                exc.stderr.decode()[-500:]
                if isinstance(exc, subprocess.CalledProcessError)
                else exc
            )
            print(f"pgo: skipped, the install's build is kept ({detail})", file=sys.stderr)
            for _, built in pairs:
                shutil.copy2(saved / built.relative_to(ROOT), built)
            return 0
        finally:
            for profile in (ROOT / "loo_replay").rglob("*.gcda"):
                profile.unlink()
    _record_profile()
    print(f"pgo: {len(pairs)} modules compiled with their profile")
    return 0


def _record_profile() -> None:
    """Mark the build record (setup.py) as profile-guided, for ``--version`` and the bench."""
    record_path = ROOT / "loo_replay" / "build-record.json"
    record = json.loads(record_path.read_text())
    record["profile"] = True
    fd, tmp = tempfile.mkstemp(dir=record_path.parent, prefix=".build-record-")
    with os.fdopen(fd, "w") as out:
        json.dump(record, out, indent=1, sort_keys=True)
    os.replace(tmp, record_path)


if __name__ == "__main__":
    sys.exit(main())
