"""``bundle`` and ``verify CASE.zip`` through the real command line (docs/evidence.md): the
bundle's content is the commands' own output, its bytes are the same for the same inputs
and SOURCE_DATE_EPOCH, it verifies from another folder, and each tampering of docs/evidence.md's
ground truth is caught and named (the archive attacks are in tests/hostile/)."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import orjson
import pytest
from bundle_helpers import EPOCH, members, tampered, write_zip
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from db_helpers import SAMPLES, run

LOG = SAMPLES / "wrong-payouts.json"  # 16 deals: a lead-trump violation, five discrepancies
RULES = b'name = "club rules"\n[penalties]\nrevoke_amount = 12\n'


@pytest.fixture(autouse=True)
def _epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    monkeypatch.delenv("LOO_REPLAY_KEY_PASSPHRASE", raising=False)


def ssh_key(folder: Path, passphrase: str = "") -> Path:
    """An Ed25519 key pair made by ssh-keygen: the private key's path (``.pub`` beside it)."""
    key = folder / "id_ed25519"
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "treasurer", "-f", key],
        check=True,
    )
    return key


def fingerprint(key: Path) -> str:
    """The key's fingerprint as ``ssh-keygen -l`` prints it."""
    out = subprocess.run(["ssh-keygen", "-l", "-f", key], capture_output=True, text=True)
    return out.stdout.split()[1]


def bundled(folder: Path, *args: str | Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(LOG, folder / LOG.name)
    result = run("bundle", LOG.name, "--out", "case.zip", *args, cwd=folder)
    assert result.returncode == 0, result.stderr
    return folder / "case.zip"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A bundle of the log with a ruleset file of the club's, signed: the zip, the key."""
    import os

    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    try:
        tmp = tmp_path_factory.mktemp("signed")
        key = ssh_key(tmp / "keys")
        (tmp / "club.toml").write_bytes(RULES)
        case = bundled(tmp, "--ruleset", "club.toml", "--sign", key)
    finally:
        if before is None:
            del os.environ["SOURCE_DATE_EPOCH"]
    return case, key


def unpacked(files: dict[str, bytes], bag: Path) -> Path:
    """The bundle's files written out under ``bag``."""
    for name, data in files.items():
        (bag / name).parent.mkdir(parents=True, exist_ok=True)
        (bag / name).write_bytes(data)
    return bag


def verify(
    case: Path, *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return run("verify", case, *args, cwd=cwd or case.parent)


def failed(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "NOT verified" in result.stdout
    return [line for line in result.stdout.splitlines() if line.startswith("FAILED ")]


# ---------------------------------------------------------------------- what a bundle is


def test_a_bundle_holds_the_logs_the_rulesets_and_the_commands_own_json(tmp_path: Path) -> None:
    case = bundled(tmp_path / "made")
    _, files = members(case)
    assert files["data/logs/wrong-payouts.json"] == LOG.read_bytes()
    assert (
        files["data/rulesets/three-card.toml"]
        == (Path(__file__).parents[1] / "loo_replay" / "rulesets" / "three-card.toml").read_bytes()
    )
    bag = unpacked(files, tmp_path / "bag")
    log = "data/logs/wrong-payouts.json"
    audit = run("validate", log, "--format", "json", cwd=bag)
    assert files["data/audit.json"] == audit.stdout.encode()
    fairness = run("fairness", log, "--format", "json", cwd=bag)
    assert files["data/fairness.json"] == fairness.stdout.encode()
    statement = json.loads(files["statement.json"])
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["subject"][0]["name"] == log
    (session,) = statement["predicate"]["sessions"]
    assert session["findings"] == {"lead-trump": 1} and session["discrepancies"] == 5
    info = files["bag-info.txt"].decode()
    assert "Bagging-Date: 2023-11-14" in info
    assert f"Loo-Replay-Command: loo-replay bundle {log} --out case.zip" in info
    assert str(tmp_path) not in info  # no path of the machine
    assert (
        f"Payload-Oxum: {sum(len(d) for n, d in files.items() if n.startswith('data/'))}.4" in info
    )


def test_the_same_inputs_and_epoch_give_the_same_bytes_and_it_verifies_elsewhere(
    tmp_path: Path,
) -> None:
    first, second = bundled(tmp_path / "one"), bundled(tmp_path / "two")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as z:
        assert {i.date_time for i in z.infolist()} == {(2023, 11, 14, 22, 13, 20)}
        assert {i.external_attr >> 16 for i in z.infolist()} == {0o100644}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.move(first, elsewhere / "moved.zip")
    shutil.rmtree(tmp_path / "one")  # the logs it was made from are gone
    result = verify(elsewhere / "moved.zip", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verified" in result.stdout
    assert "not signed: it proves consistency, not authorship" in result.stdout


def test_analysis_and_decisions_are_bundled_and_re_run(tmp_path: Path) -> None:
    case = bundled(tmp_path, "--analysis", "--decisions", "--samples", "2", "--seed", "5")
    _, files = members(case)
    assert {n for n in files if n.count("/") == 1 and n.endswith(".json")} == {
        "data/audit.json",
        "data/fairness.json",
        "data/analysis.json",
        "data/collusion.json",
        "data/decisions.json",
    }
    options = json.loads(files["statement.json"])["predicate"]["options"]
    assert options["decisions"] == {"samples": 2, "seed": 5} and options["analysis"] is True
    bag = unpacked(files, tmp_path / "bag")
    log = "data/logs/wrong-payouts.json"
    for name, command in {
        "audit": ["validate", log],
        "analysis": ["analyse", log],
        "decisions": ["analyse", log, "--decisions", "--samples", "2", "--seed", "5"],
        "collusion": ["collusion", log],
    }.items():
        own = run(*command, "--format", "json", cwd=bag)
        assert files[f"data/{name}.json"] == own.stdout.encode(), name
    result = verify(case, "--jobs", "2")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the audit re-run gives the same 5 output(s)" in result.stdout


# ---------------------------------------------------------------------------- signatures


def test_a_signed_bundle_names_its_key_and_verifies_with_it(signed: tuple[Path, Path]) -> None:
    case, key = signed
    unchecked = verify(case)
    assert unchecked.returncode == 0, unchecked.stdout
    assert f"signed by the key {fingerprint(key)}: signature not checked" in unchecked.stdout
    checked = verify(case, "--key", key.with_suffix(".pub"))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"signature verified: made by the key {fingerprint(key)}" in checked.stdout
    _, files = members(case)
    envelope = json.loads(files["statement.dsse.json"])
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    assert envelope["signatures"][0]["keyid"] == fingerprint(key)


def test_a_statement_signed_by_another_key_is_named(
    signed: tuple[Path, Path], tmp_path: Path
) -> None:
    case, key = signed
    other = ssh_key(tmp_path / "other")
    (problem,) = failed(verify(case, "--key", other.with_suffix(".pub")))
    assert "statement.dsse.json: bad signature: not made by the key given" in problem
    assert fingerprint(other) in problem and fingerprint(key) in problem


def test_a_pem_key_and_a_key_with_a_passphrase_sign(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private = Ed25519PrivateKey.generate()
    pem = tmp_path / "key.pem"
    pem.write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"open sesame"),
        )
    )
    public = tmp_path / "key.pub.pem"
    public.write_bytes(
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    refused = run("bundle", LOG, "--out", tmp_path / "x.zip", "--sign", pem, cwd=tmp_path)
    assert refused.returncode == 2
    assert "LOO_REPLAY_KEY_PASSPHRASE" in refused.stderr and not (tmp_path / "x.zip").exists()
    monkeypatch.setenv("LOO_REPLAY_KEY_PASSPHRASE", "wrong")
    wrong = run("bundle", LOG, "--out", tmp_path / "x.zip", "--sign", pem, cwd=tmp_path)
    assert wrong.returncode == 2 and "passphrase is wrong" in wrong.stderr
    monkeypatch.setenv("LOO_REPLAY_KEY_PASSPHRASE", "open sesame")
    case = bundled(tmp_path / "pem", "--sign", pem)
    assert verify(case, "--key", public).returncode == 0
    ssh = ssh_key(tmp_path / "ssh", passphrase="open sesame")
    case = bundled(tmp_path / "ssh-made", "--sign", ssh)
    assert verify(case, "--key", ssh.with_suffix(".pub")).returncode == 0


# ----------------------------------------------------------------------------- tampering


def test_a_log_byte_changed_is_named(signed: tuple[Path, Path], tmp_path: Path) -> None:
    case, _ = signed

    def change(files: dict[str, bytes]) -> None:
        log = files["data/logs/wrong-payouts.json"]
        files["data/logs/wrong-payouts.json"] = log.replace(b'"ann"', b'"amy"', 1)

    problems = failed(verify(tampered(case, tmp_path / "t.zip", change, manifests=False)))
    assert problems[0] == (
        "FAILED data/logs/wrong-payouts.json changed: its sha256 is not the one its manifest records"
    )


def test_a_findings_file_edited_with_the_manifests_updated_is_caught_by_the_re_run(
    signed: tuple[Path, Path], tmp_path: Path
) -> None:
    case, _ = signed

    def change(files: dict[str, bytes]) -> None:
        audit = orjson.loads(files["data/audit.json"])
        deal = next(d for d in audit["sessions"][0]["deals"] if d["violations"])
        deal["violations"] = []  # the lead-trump violation hidden
        files["data/audit.json"] = orjson.dumps(audit) + b"\n"

    only_manifests = failed(verify(tampered(case, tmp_path / "a.zip", change)))
    assert (
        only_manifests[0] == "FAILED data/audit.json differs from the digest statement.json records"
    )
    forged = failed(verify(tampered(case, tmp_path / "b.zip", change, statement=True)))
    assert forged[-1] == (
        "FAILED data/audit.json differs from the audit re-run, first at /sessions/0/deals/3/violations/0"
    ), forged
    # The forger re-wrote the statement, so the signature no longer covers it.
    signed_problem = verify(tmp_path / "b.zip", "--key", signed[1].with_suffix(".pub"))
    assert (
        "statement.dsse.json signs another statement than statement.json" in signed_problem.stdout
    )


def test_a_ruleset_edited_with_the_manifests_updated_is_named(
    signed: tuple[Path, Path], tmp_path: Path
) -> None:
    case, _ = signed

    def custom(files: dict[str, bytes]) -> None:
        files["data/rulesets/custom/club.toml"] = RULES.replace(b"club rules", b"our rules")

    problems = failed(verify(tampered(case, tmp_path / "c.zip", custom)))
    assert problems[0] == (
        "FAILED data/rulesets/custom/club.toml differs from the digest statement.json records"
    )
    forged = failed(verify(tampered(case, tmp_path / "d.zip", custom, statement=True)))
    assert forged == [
        "FAILED statement.dsse.json signs another statement than statement.json",
        "FAILED data/audit.json differs from the audit re-run, first at /sessions/0/ruleset",
    ]


def test_a_built_in_ruleset_edited_is_named(tmp_path: Path) -> None:
    case = bundled(tmp_path)

    def change(files: dict[str, bytes]) -> None:
        toml = files["data/rulesets/three-card.toml"]
        files["data/rulesets/three-card.toml"] = toml + b"\n# changed\n"

    problems = failed(verify(tampered(case, tmp_path / "e.zip", change, statement=True)))
    assert problems == [
        "FAILED data/rulesets/three-card.toml differs from the built-in ruleset three-card "
        "of loo-replay 0.2.0"
    ]


def test_an_extra_file_is_named(signed: tuple[Path, Path], tmp_path: Path) -> None:
    case, _ = signed

    def extra(files: dict[str, bytes]) -> None:
        files["data/logs/later.json"] = LOG.read_bytes()
        files["notes.txt"] = b"nothing to see\n"

    problems = failed(verify(tampered(case, tmp_path / "f.zip", extra, manifests=False)))
    assert "FAILED data/logs/later.json is an extra file: no manifest lists it" in problems
    assert "FAILED notes.txt is an extra file: no manifest lists it" in problems
    listed = failed(verify(tampered(case, tmp_path / "g.zip", extra)))
    assert "FAILED data/logs/later.json is not a subject of statement.json" in listed


def test_another_version_s_bundle_is_re_run_and_a_difference_is_the_versions(
    tmp_path: Path,
) -> None:
    case = bundled(tmp_path)

    def older(files: dict[str, bytes]) -> None:
        files["data/audit.json"] = files["data/audit.json"].replace(
            b'{"loo_replay":"0.2.0"', b'{"loo_replay":"0.1.9"', 1
        )
        statement = files["statement.json"].replace(b'"version": "0.2.0"', b'"version": "0.1.9"')
        files["statement.json"] = statement

    same = verify(tampered(case, tmp_path / "h.zip", older, statement=True))
    assert same.returncode == 0, same.stdout
    assert "made by loo-replay 0.1.9, verified by 0.2.0" in same.stdout

    def older_and_other(files: dict[str, bytes]) -> None:
        older(files)
        files["data/audit.json"] = files["data/audit.json"].replace(
            b'"lead-trump"', b'"lead-trumps"'
        )

    problems = failed(verify(tampered(case, tmp_path / "i.zip", older_and_other, statement=True)))
    assert problems == [
        "FAILED the audit differs between versions 0.1.9 and 0.2.0: data/audit.json, "
        "first at /sessions/0/deals/3/violations/0/code"
    ]


def test_a_statement_asking_more_than_samples_allow_is_not_re_run(tmp_path: Path) -> None:
    case = bundled(tmp_path)

    def greedy(files: dict[str, bytes]) -> None:
        statement = json.loads(files["statement.json"])
        statement["predicate"]["options"]["decisions"] = {"samples": 10**9, "seed": 0}
        files["statement.json"] = json.dumps(statement).encode()

    problems = failed(verify(tampered(case, tmp_path / "greedy.zip", greedy)))
    assert problems == [
        "FAILED statement.json: the statement's options are not as loo-replay writes them; "
        "the audit was not re-run"
    ]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    not_zip = run("bundle", LOG, "--out", tmp_path / "case.tar", cwd=tmp_path)
    assert not_zip.returncode == 2 and "does not end in .zip" in not_zip.stderr
    missing = run("verify", tmp_path / "nothing.zip", cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    (tmp_path / "plain.zip").write_bytes(b"not a zip")
    garbage = run("verify", tmp_path / "plain.zip", cwd=tmp_path)
    assert garbage.returncode == 2 and "is not a readable zip file" in garbage.stderr
    empty = write_zip(tmp_path / "empty.zip", "x", {"readme.txt": b"hi"})
    assert "holds no bagit.txt" in run("verify", empty, cwd=tmp_path).stderr
    badkey = run("verify", empty, "--key", LOG, cwd=tmp_path)
    assert badkey.returncode == 2 and "is not a public key" in badkey.stderr
