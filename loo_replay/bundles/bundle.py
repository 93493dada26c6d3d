"""``bundle`` and ``verify CASE.zip``: an audit packed with what it was made from, so that
a second person can check that nothing changed and re-run it (docs/evidence.md).

A bundle is a zipped BagIt bag (``bag``): the logs byte for byte under ``data/logs/``,
every ruleset the audit used under ``data/rulesets/``, the audit's JSON outputs under
``data/`` (``audit``), an in-toto statement of what was audited and found (``intoto``) and,
if asked, a DSSE envelope signing it (``dsse``).  Verifying reads the zip as a stranger's
file (``archive``), checks the bag and the statement against it, the signature, and runs
the audit again, naming the first difference.
"""

from __future__ import annotations

import contextlib
import hashlib
import platform
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from loo_replay import RECORD, __version__, build, package_file
from loo_replay.bundles.audit import AUDIT, FAIRNESS, AuditOptions, audit_outputs
from loo_replay.bundles.audit import first_difference as difference_in
from loo_replay.errors import InputError
from loo_replay.evidence import archive, bag, dsse, intoto
from loo_replay.evidence.archive import ARCHIVE_LIMITS, ArchiveError, ArchiveLimits
from loo_replay.files import replacing, staging
from loo_replay.logs.limits import LIMITS, Limits
from loo_replay.rulesets import builtin_names
from loo_replay.run.driver import expanded

LOGS = "data/logs/"
RULESETS = "data/rulesets/"
CUSTOM = RULESETS + "custom/"
STATEMENT = "statement.json"
ENVELOPE = "statement.dsse.json"
STATEMENT_BYTES = 64 << 20  # a statement of 100,000 sessions is about 40 MB
# The libraries whose versions can change an audit's bytes, named in bag-info.txt.
DEPENDENCIES = (
    "duckdb",
    "polars",
    "pyarrow",
    "numpy",
    "orjson",
    "msgspec",
    "cython",
    "bagit",
    "cryptography",
)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Made:
    """A bundle written: what it holds."""

    path: Path
    logs: list[str]
    sessions: int
    rulesets: list[str]
    outputs: list[str]
    keyid: str | None


def _bag_name(path: Path, taken: set[str]) -> str:
    """A log's name in the bag: its own, made safe, with ``-2``, ``-3``… before the
    extensions when two inputs share it."""
    name = _UNSAFE.sub("_", path.name).lstrip(".") or "log"
    stem, dot, extensions = name.partition(".")
    candidate, n = name, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{stem}-{n}{dot}{extensions}"
    taken.add(candidate.casefold())
    return candidate


def _log_files(paths: list[Path]) -> list[Path]:
    """The log files under ``paths``, as the run layer's driver expands them: all of them
    readable, or ``InputError``."""
    found = expanded(paths)
    if found.errors:
        raise InputError(found.errors[0])
    if found.skipped:
        raise InputError(f"{found.skipped[0]}: a bundle holds every log it names, or none")
    if not found.files:
        raise InputError("no hand logs found in the input")
    return found.files


def _copy(source: Path, target: Path) -> str:
    """``source`` copied to ``target`` (new), its sha256."""
    target.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with source.open("rb") as src, target.open("xb") as dst:
        while chunk := src.read(1 << 20):
            digest.update(chunk)
            dst.write(chunk)
    return digest.hexdigest()


def _builtin_bytes(name: str) -> bytes:
    return package_file("rulesets", f"{name}.toml").read_bytes()


def _rulesets_used(audit_json: bytes, options: AuditOptions) -> list[str]:
    """The built-in rulesets the audit judged by: the one chosen, else each session's."""
    if options.ruleset is not None:
        return [options.ruleset] if options.ruleset in builtin_names() else []
    sessions = orjson.loads(audit_json).get("sessions", [])
    names = {s.get("ruleset") for s in sessions if isinstance(s, dict)}
    return sorted(n for n in names if isinstance(n, str) and n in builtin_names())


def _sessions(audit_json: bytes) -> list[dict[str, Any]]:
    """Per session: the deals audited, the findings counted by code, the discrepancies."""
    found = []
    for s in orjson.loads(audit_json).get("sessions", []):
        deals = s.get("deals", [])
        codes = Counter(v["code"] for d in deals for v in d.get("violations", []))
        found.append(
            {
                "id": s.get("id"),
                "file": s.get("file"),
                "deals": len(deals),
                "audited": sum(d.get("status") == "audited" for d in deals),
                "findings": dict(sorted(codes.items())),
                "discrepancies": sum(len(d.get("discrepancies", [])) for d in deals),
                "errors": len(s.get("errors", [])),
            }
        )
    return found


def _flags(outputs: dict[str, bytes]) -> dict[str, Any]:
    """The fairness tests and the collusion pairs flagged."""
    fairness = orjson.loads(outputs[FAIRNESS])
    flags: dict[str, Any] = {
        "fairness": [
            {"test": t["test"], "scope": t["scope"], "subject": t["subject"]}
            for t in fairness["tests"]
            if t.get("flagged")
        ]
    }
    if "data/collusion.json" in outputs:
        collusion = orjson.loads(outputs["data/collusion.json"])
        flags["collusion"] = [
            {"pair": p["pair"], "tests": [t["test"] for t in p["tests"] if t.get("flagged")]}
            for p in collusion["pairs"]
            if p.get("flagged")
        ]
    return flags


def _build_record() -> str:
    try:
        data = package_file(RECORD).read_bytes()
    except OSError:
        return "none"
    return hashlib.sha256(data).hexdigest()


def _versions() -> str:
    found = []
    for name in DEPENDENCIES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return ", ".join(found)


def _command(logs: list[str], options: AuditOptions, out: Path, signed: bool) -> str:
    words = ["loo-replay", "bundle", *logs]
    if options.ruleset:
        words += ["--ruleset", options.ruleset]
    for item in options.settings:
        words += ["--set", item]
    if options.analysis:
        words.append("--analysis")
    if options.decisions is not None:
        d = options.decisions
        words += ["--decisions", "--samples", str(d.samples), "--seed", str(d.seed)]
    if signed:
        words += ["--sign", "KEYFILE"]
    return " ".join([*words, "--out", out.name])


def make_bundle(
    paths: list[Path],
    out: Path,
    options: AuditOptions,
    *,
    ruleset_file: Path | None = None,
    key: Ed25519PrivateKey | None = None,
    epoch: int | None = None,
    jobs: int = 1,
    scheduler: str | None = None,
    limits: Limits = LIMITS,
) -> Made:
    """Write the bundle of the logs under ``paths`` audited under ``options`` to ``out``,
    in ``jobs`` processes or on the Dask cluster at ``scheduler`` (the same bytes).
    ``ruleset_file`` is the user's ruleset file, if ``--ruleset`` named one: it goes into
    the bag and ``options.ruleset`` must be None (it becomes the bag's name of the file).
    ``epoch`` is ``SOURCE_DATE_EPOCH`` (else now)."""
    files = _log_files(paths)
    when = int(time.time()) if epoch is None else epoch
    with staging(Path(tempfile.gettempdir())) as stage:
        taken: set[str] = set()
        logs = [LOGS + _bag_name(p, taken) for p in files]
        digests = {name: _copy(p, stage / name) for p, name in zip(files, logs, strict=True)}
        subjects = dict(digests)
        if ruleset_file is not None:
            name = CUSTOM + _bag_name(ruleset_file, set())
            digests[name] = _copy(ruleset_file, stage / name)
            options = AuditOptions(name, options.settings, options.analysis, options.decisions)
        outputs = audit_outputs(stage, logs, options, jobs, scheduler, limits)
        for name in _rulesets_used(outputs[AUDIT], options):
            (stage / RULESETS).mkdir(parents=True, exist_ok=True)
            (stage / f"{RULESETS}{name}.toml").write_bytes(_builtin_bytes(name))
            digests[f"{RULESETS}{name}.toml"] = hashlib.sha256(_builtin_bytes(name)).hexdigest()
        for name, data in outputs.items():
            (stage / name).write_bytes(data)
            digests[name] = hashlib.sha256(data).hexdigest()
        rulesets = sorted(n for n in digests if n.startswith(RULESETS))
        predicate = {
            "tool": {"name": "loo-replay", "version": __version__},
            "options": options.as_json(),
            "rulesets": {n: {"sha256": digests[n]} for n in rulesets},
            "sessions": _sessions(outputs[AUDIT]),
            "flags": _flags(outputs),
            "outputs": {n: {"sha256": digests[n]} for n in outputs},
        }
        statement = intoto.statement(subjects, predicate)
        tags = {STATEMENT: statement}
        if key is not None:
            tags[ENVELOPE] = dsse.sign(statement, key)
        size = sum((stage / n).stat().st_size for n in digests)
        info = bag.bag_info(
            [
                ("Bag-Software-Agent", f"loo-replay {__version__}"),
                ("Bagging-Date", time.strftime("%Y-%m-%d", time.gmtime(when))),
                ("Loo-Replay-Version", __version__),
                ("Loo-Replay-Build", f"{build()}; build record sha256 {_build_record()}"),
                (
                    "Python-Version",
                    f"{platform.python_implementation()} {platform.python_version()}",
                ),
                ("Dependency-Versions", _versions()),
                ("Loo-Replay-Command", _command(logs, options, out, key is not None)),
                ("Payload-Oxum", f"{size}.{len(digests)}"),
            ]
        )
        manifest = bag.manifest(digests)
        tag_files = {"bagit.txt": bag.BAGIT_TXT, "bag-info.txt": info, bag.MANIFEST: manifest}
        tag_files |= tags
        tagmanifest = bag.manifest({n: hashlib.sha256(d).hexdigest() for n, d in tag_files.items()})
        members = [bag.Member(n, d) for n, d in tag_files.items()]
        members.append(bag.Member(bag.TAGMANIFEST, tagmanifest))
        payload = [bag.Member(n, stage / n) for n in digests]
        top = _UNSAFE.sub("_", out.name.removesuffix(".zip")).lstrip(".") or "bundle"
        with replacing(out) as f:
            bag.write_zip(f, top, members, payload, when)
    sessions = len(predicate["sessions"])
    keyid = None if key is None else dsse.fingerprint(key.public_key())
    return Made(out, logs, sessions, rulesets, list(outputs), keyid)


# ----------------------------------------------------------------------------- verify


@dataclass
class Verdict:
    """What ``verify`` found: each problem names a file (and a JSON pointer); ``notes`` say
    what holds and what was not checked."""

    made_by: str | None = None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    keyid: str | None = None

    @property
    def exit_code(self) -> int:
        return 1 if self.problems else 0


def _digest(path: Path) -> str:
    return bag.sha256_file(path)


def _statement_agrees(
    root: Path, names: set[str], subjects: dict[str, str], predicate: dict[str, Any]
) -> list[str]:
    """The statement against the bag: each log a subject, each ruleset and output the digest
    the predicate records."""
    problems = []
    logs = {n for n in names if n.startswith(LOGS)}
    for name in sorted(logs - set(subjects)):
        problems.append(f"{name} is not a subject of {STATEMENT}")
    recorded: dict[str, str | None] = dict(subjects)
    for group in ("rulesets", "outputs"):
        entries = predicate.get(group)
        if not isinstance(entries, dict):
            problems.append(f"{STATEMENT} records no {group}")
            continue
        for name, entry in entries.items():
            recorded[name] = entry.get("sha256") if isinstance(entry, dict) else None
    for name in sorted(
        n for n in names if n.startswith(RULESETS) or re.fullmatch(r"data/[^/]+\.json", n)
    ):
        if name not in recorded:
            problems.append(f"{name} is not recorded in {STATEMENT}")
    for name, digest in recorded.items():
        if name not in names:
            problems.append(f"{name}, recorded in {STATEMENT}, is not in the bundle")
        elif _digest(root / name) != digest:
            problems.append(f"{name} differs from the digest {STATEMENT} records")
    return problems


def _builtins_agree(root: Path, names: set[str]) -> list[str]:
    problems = []
    for name in sorted(names):
        stem = name.removeprefix(RULESETS).removesuffix(".toml")
        builtin = name.startswith(RULESETS) and "/" not in stem and stem in builtin_names()
        if builtin and (root / name).read_bytes() != _builtin_bytes(stem):
            problems.append(
                f"{name} differs from the built-in ruleset {stem} of loo-replay {__version__}"
            )
    return problems


def _small(path: Path) -> bytes:
    """A statement or an envelope: a few kilobytes a session, refused past ``STATEMENT_BYTES``
    rather than read whole into memory (``ValueError``)."""
    if path.stat().st_size > STATEMENT_BYTES:
        raise ValueError(f"{path.name} is larger than {STATEMENT_BYTES:,} bytes; it was not read")
    return path.read_bytes()


def _signature(
    root: Path,
    names: set[str],
    statement: bytes,
    key: Ed25519PublicKey | None,
    verdict: Verdict,
) -> None:
    if ENVELOPE not in names:
        if key is not None:
            verdict.problems.append(
                f"the bundle is not signed ({ENVELOPE} is absent), and --key was given"
            )
        else:
            verdict.notes.append("the bundle is not signed: it proves consistency, not authorship")
        return
    try:
        payload, signatures = dsse.read_envelope(_small(root / ENVELOPE))
    except (dsse.EnvelopeError, ValueError) as exc:
        verdict.problems.append(str(exc))
        return
    keyids = ", ".join(k for k, _ in signatures)
    verdict.keyid = keyids
    if payload != statement:
        verdict.problems.append(f"{ENVELOPE} signs another statement than {STATEMENT}")
        return
    if key is None:
        verdict.notes.append(f"signed by the key {keyids}: signature not checked (give --key)")
        return
    mine = dsse.fingerprint(key)
    if any(dsse.verified(payload, sig, key) for _, sig in signatures):
        verdict.notes.append(f"signature verified: made by the key {mine}")
    else:
        verdict.problems.append(
            f"{ENVELOPE}: bad signature: not made by the key given ({mine}); it names {keyids}"
        )


def _safe_options(options: AuditOptions, names: set[str]) -> str | None:
    """Why the recorded options cannot be re-run here: a ruleset outside the bag."""
    r = options.ruleset
    if r is None or r in builtin_names() or (r.startswith(RULESETS) and r in names):
        return None
    return f"{STATEMENT} names the ruleset {r!r}, neither built in nor in the bundle"


def _rerun(
    root: Path,
    names: set[str],
    subjects: dict[str, str],
    predicate: dict[str, Any],
    jobs: int,
    scheduler: str | None,
    limits: Limits,
    verdict: Verdict,
    step: Callable[[str], None],
) -> None:
    try:
        options = AuditOptions.from_json(predicate.get("options"))
    except ValueError as exc:
        verdict.problems.append(f"{STATEMENT}: {exc}; the audit was not re-run")
        return
    logs = list(subjects)
    outside = [n for n in logs if not n.startswith(LOGS) or n not in names]
    why = _safe_options(options, names) or (
        f"the subject {outside[0]!r} is not a log of the bundle" if outside else None
    )
    if why:
        verdict.problems.append(f"{why}; the audit was not re-run")
        return
    try:
        again = audit_outputs(root, logs, options, jobs, scheduler, limits, step)
    except InputError as exc:
        verdict.problems.append(f"the audit could not be re-run: {exc}")
        return
    recorded = {n for n in names if re.fullmatch(r"data/[^/]+\.json", n)}
    versions = verdict.made_by not in (None, __version__)
    before = len(verdict.problems)
    for name in sorted(recorded | set(again)):
        if name not in again:
            verdict.problems.append(f"{name} is not an output of the audit its options ask for")
            continue
        if name not in recorded:
            verdict.problems.append(f"{name} is missing: the audit re-run writes it")
            continue
        where = difference_in((root / name).read_bytes(), again[name])
        if where is None:
            continue
        if versions:
            verdict.problems.append(
                f"the audit differs between versions {verdict.made_by} and {__version__}: "
                f"{name}, first at {where}"
            )
        else:
            verdict.problems.append(f"{name} differs from the audit re-run, first at {where}")
    if len(verdict.problems) == before:
        verdict.notes.append(f"the audit re-run gives the same {len(again)} output(s)")


@contextlib.contextmanager
def _extracted(zip_path: Path, limits: ArchiveLimits) -> Iterator[tuple[Path, set[str]]]:
    with staging(Path(tempfile.gettempdir())) as work:
        stage = work / "bundle"  # beside staging's own marker, never over it
        stage.mkdir(mode=0o700)
        names = archive.extract(zip_path, stage, limits)
        root = bag.bag_root(stage, names)
        if root is None:
            raise ArchiveError(f"{zip_path} is not a bundle: it holds no bagit.txt")
        prefix = root.relative_to(stage).as_posix()
        inside = {n.removeprefix(f"{prefix}/") if prefix != "." else n for n in names}
        yield root, inside


def verify_bundle(
    zip_path: Path,
    key: Ed25519PublicKey | None = None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    limits: Limits = LIMITS,
    archive_limits: ArchiveLimits = ARCHIVE_LIMITS,
    step: Callable[[str], None] | None = None,
) -> Verdict:
    """Check the bundle at ``zip_path``: the archive, the bag, the signature, the audit run
    again (in ``jobs`` processes, or on the Dask cluster at ``scheduler``).  ``ArchiveError`` when the archive is refused or is not a bundle (nothing of it
    was judged); otherwise the verdict, each problem naming its file."""
    say = step or (lambda _: None)
    verdict = Verdict()
    with _extracted(zip_path, archive_limits) as (root, names):
        say("the archive's members are within the limits and safely named")
        verdict.problems += bag.check_bag(root, names)
        if STATEMENT not in names:
            verdict.problems.append(f"{STATEMENT} is missing: nothing says what was audited")
            return verdict
        try:
            statement = _small(root / STATEMENT)
        except ValueError as exc:
            verdict.problems.append(str(exc))
            return verdict
        try:
            subjects, predicate = intoto.read_statement(statement)
        except ValueError as exc:
            verdict.problems.append(str(exc))
            return verdict
        tool = predicate.get("tool")
        verdict.made_by = str(tool.get("version")) if isinstance(tool, dict) else None
        if verdict.made_by not in (None, __version__):
            verdict.notes.append(
                f"made by loo-replay {verdict.made_by}, verified by {__version__}: "
                "a difference in the audit is the versions', not tampering"
            )
        verdict.problems += _statement_agrees(root, names, subjects, predicate)
        verdict.problems += _builtins_agree(root, names)
        say("the bag checked")
        _signature(root, names, statement, key, verdict)
        say("the audit re-run")
        _rerun(root, names, subjects, predicate, jobs, scheduler, limits, verdict, say)
    return verdict


__all__ = ["Made", "Verdict", "make_bundle", "verify_bundle"]
