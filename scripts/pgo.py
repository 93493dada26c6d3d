"""Trains a profile of the compiled part and compiles it with it (docs/performance.md,
"Profile-guided build"): ``make pgo``, opt-in.

It compiles the C that Cython wrote (``build/cython``) once more, instrumented, exactly as
setup.py compiles it (from the project folder, the same relative source paths: gcc's
profile checks them); audits and loads a training corpus simulated here (never the
benchmark's); saves each module's profile as ``profiles/<module path>.gcda`` with the
hashes of the C it was trained on; and reinstalls, so that setup.py compiles every module
with its profile.  profiles/ stays on this machine (it is not committed): a later
``make`` or ``pip install -e .`` here uses it too.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERATED = Path("build", "cython")  # setup.py's cythonize(build_dir=...), from ROOT
PROFILES = ROOT / "profiles"
TRAINED_ON = PROFILES / "trained-on.json"
SUFFIX = str(sysconfig.get_config_var("EXT_SUFFIX"))
# The rulesets the corpus is simulated under: three- and five-card hands, Irish exchanges,
# flushes, unlimited loo, Pam; violations and corrupted records are injected.
RULESETS = ("three-card", "five-card", "hoyle-irish", "hoyle-flushes", "hoyle-unlimited")
# setup.py's flags that shape the code (Python's own -O3 -fwrapv -DNDEBUG), instrumented.
GENERATE = ["-O3", "-fwrapv", "-DNDEBUG", "-fPIC", "-fprofile-generate",
            "-fprofile-update=prefer-atomic"]  # fmt: skip


def modules() -> list[tuple[Path, Path]]:
    """(C source relative to ROOT, installed extension) of every module of setup.py's
    COMPILED that the install compiled (build/cython may hold the C of modules since
    renamed: not theirs)."""
    listed = re.findall(r'^    "(loo_replay/.*)\.py",$', (ROOT / "setup.py").read_text(), re.M)
    pairs = []
    for name in sorted(listed):
        module = Path(name)
        source = GENERATED / module.with_suffix(".c")
        built = ROOT / module.parent / (module.name + SUFFIX)
        if (ROOT / source).is_file() and built.is_file():
            pairs.append((source, built))
    return pairs


def compile_instrumented(pairs: list[tuple[Path, Path]], objects: Path) -> None:
    """Each module compiled to an object under ``objects`` (where gcc writes its profile
    as the module runs, ``objects/build/cython/.../name.gcda``, the path setup.py's build
    reads it from under its own temporary folder) and linked to its installed place."""
    cc = shlex.split(os.environ.get("CC", "gcc"))  # may carry flags: "gcc -pthread"
    include = sysconfig.get_paths()["include"]

    def one(pair: tuple[Path, Path]) -> None:
        source, built = pair
        obj = objects / source.with_suffix(".o")
        obj.parent.mkdir(parents=True, exist_ok=True)
        compile_ = [*cc, *GENERATE, f"-I{include}", "-c", str(source), "-o", str(obj)]
        link = [*cc, "-shared", "-fprofile-generate", str(obj), "-o", str(built)]
        for command in (compile_, link):
            subprocess.run(command, check=True, cwd=ROOT, capture_output=True)

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


def save(pairs: list[tuple[Path, Path]], objects: Path) -> None:
    """The trained profiles into profiles/, with the hash of the C each was trained on."""
    if PROFILES.exists():
        for old in PROFILES.rglob("*.gcda"):
            old.unlink()
    trained = {}
    for source, _ in pairs:
        module = source.relative_to(GENERATED).with_suffix("")
        profile = (objects / source).with_suffix(".gcda")
        if not profile.is_file():
            raise RuntimeError(f"the training run never ran {module}")
        inside = Path(*module.parts[1:])  # engine/solver, as setup.py looks for it
        kept = PROFILES / inside.with_suffix(".gcda")
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(profile, kept)
        trained[".".join(inside.parts)] = hashlib.sha256((ROOT / source).read_bytes()).hexdigest()
    TRAINED_ON.write_text(json.dumps(trained, indent=1, sort_keys=True) + "\n")


def main() -> int:
    pairs = modules()
    if not pairs:
        sys.exit("pgo: no compiled modules (pure-Python install): run make first")
    with tempfile.TemporaryDirectory(prefix="loo-pgo-") as tmp:
        objects = Path(tmp, "objects")
        print(f"pgo: compiling {len(pairs)} modules instrumented (1-2 min)", flush=True)
        compile_instrumented(pairs, objects)
        (work := Path(tmp, "train")).mkdir()
        print("pgo: a training run of validate and ingest over simulated games", flush=True)
        train(work)
        save(pairs, objects)
    print(f"pgo: {len(pairs)} profiles saved in profiles/; compiling with them", flush=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-build-isolation",
            "--no-deps",
            "-e",
            str(ROOT),
        ],
        check=True,
        cwd=ROOT,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
