"""A stranger's bundle: ``verify`` reads the zip as untrusted input (docs/limits.md,
"Evidence bundles").  Each attack is built at a small scale and run through the real
command: it is refused with exit status 2 and a message naming the member or the limit
(and the option that raises it), nothing is written outside verify's own temporary folder,
that folder is gone afterwards, and the peak memory stays under the ceiling."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest
from bundle_helpers import members, write_zip
from db_helpers import SAMPLES, run
from peak_helpers import PEAK_MB, measured


@pytest.fixture
def tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder every command of the test uses (TMPDIR), empty."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    return folder


def refused(case: Path, tmp: Path, *args: str) -> str:
    """verify's one line on ``case``: exit 2, memory bounded, no temporary folder left."""
    result, peak = measured("verify", case, *args, cwd=case.parent)
    assert result.returncode == 2, result.stdout + result.stderr
    assert peak < PEAK_MB, f"{peak} MB"
    assert list(tmp.iterdir()) == [], "verify left its temporary folder behind"
    (line,) = [x for x in result.stderr.splitlines() if "pure Python" not in x]
    return line


def zipped(path: Path, *entries: tuple[zipfile.ZipInfo | str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for info, data in entries:
            z.writestr(info, data)
    return path


def test_names_that_climb_out_are_refused_before_anything_is_extracted(
    tmp_path: Path, tmp: Path
) -> None:
    target = tmp_path / "planted.txt"
    climbing = zipped(
        tmp_path / "up.zip", ("case/bagit.txt", b"x"), ("case/../../planted.txt", b"x")
    )
    assert "climbs out of the archive with '..'" in refused(climbing, tmp)
    absolute = zipped(tmp_path / "abs.zip", (str(target), b"x"))
    assert refused(absolute, tmp) == (
        f"loo-replay: member {str(target)!r} is an absolute path; nothing extracted"
    )
    assert not target.exists()


def test_a_link_member_is_refused(tmp_path: Path, tmp: Path) -> None:
    link = zipfile.ZipInfo("case/data/logs/passwd.json")
    link.create_system = 3
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    case = zipped(tmp_path / "link.zip", ("case/bagit.txt", b"x"), (link, b"/etc/passwd"))
    assert refused(case, tmp) == (
        "loo-replay: member 'case/data/logs/passwd.json' is a link, not a file; nothing extracted"
    )


def test_duplicates_and_names_the_same_but_for_case_or_unicode_form_are_refused(
    tmp_path: Path, tmp: Path
) -> None:
    with pytest.warns(UserWarning, match="Duplicate name"):
        twice = zipped(tmp_path / "twice.zip", ("case/a.json", b"1"), ("case/a.json", b"2"))
    assert "member 'case/a.json' is a duplicate of 'case/a.json'" in refused(twice, tmp)
    case = zipped(tmp_path / "case.zip", ("case/Night.json", b"1"), ("case/night.json", b"2"))
    assert "differs only by case or Unicode form from 'case/Night.json'" in refused(case, tmp)
    nfc, nfd = "case/caf\u00e9.json", "case/cafe\u0301.json"
    form = zipped(tmp_path / "form.zip", (nfc, b"1"), (nfd, b"2"))
    assert "differs only by case or Unicode form" in refused(form, tmp)


def test_an_encrypted_member_is_refused(tmp_path: Path, tmp: Path) -> None:
    case = zipped(tmp_path / "secret.zip", ("case/bagit.txt", b"x"))
    data = bytearray(case.read_bytes())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.index(signature) + flags_at
        data[at] |= 0x01  # the general purpose flag's bit 0: encrypted
    case.write_bytes(bytes(data))
    assert (
        refused(case, tmp) == "loo-replay: member 'case/bagit.txt' is encrypted; nothing extracted"
    )


def test_a_zip_bomb_stops_at_the_ratio_while_decompressing(tmp_path: Path, tmp: Path) -> None:
    """A 64 MB member of zeros, 64 KB compressed (1,000 to 1): stopped once past 1 MiB."""
    bomb = zipfile.ZipInfo("case/data/logs/bomb.json")
    bomb.compress_type = zipfile.ZIP_DEFLATED
    case = zipped(tmp_path / "bomb.zip", ("case/bagit.txt", b"x"), (bomb, bytes(64 << 20)))
    assert case.stat().st_size < 200_000
    assert refused(case, tmp) == (
        "loo-replay: member 'case/data/logs/bomb.json' decompresses to over 200 times its "
        "compressed size: over the archive's compression ratio limit of 200 "
        "(raise it with --max-archive-ratio)"
    )


def test_a_header_that_lies_about_the_size_is_not_believed(tmp_path: Path, tmp: Path) -> None:
    """The bomb's headers say 1,000 bytes: what comes out is counted, and does not match."""
    bomb = zipfile.ZipInfo("case/data/logs/bomb.json")
    bomb.compress_type = zipfile.ZIP_DEFLATED
    case = zipped(tmp_path / "liar.zip", (bomb, bytes(64 << 20)))
    data = bytearray(case.read_bytes())
    for signature, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.index(signature) + size_at
        data[at : at + 4] = (1000).to_bytes(4, "little")
    case.write_bytes(bytes(data))
    line = refused(case, tmp, "--max-archive-ratio", "100000")
    assert (
        line.startswith("loo-replay: member 'case/data/logs/bomb.json' of ")
        and "cannot be read" in line
    )


def test_the_member_count_and_total_size_limits_and_their_options(
    tmp_path: Path, tmp: Path
) -> None:
    made = run("bundle", SAMPLES / "wrong-payouts.json", "--out", tmp_path / "case.zip")
    assert made.returncode == 0, made.stderr
    case = tmp_path / "case.zip"
    assert refused(case, tmp, "--max-archive-members", "5") == (
        "loo-replay: the archive holds 9 members: over the archive's member count limit of 5 "
        "(raise it with --max-archive-members)"
    )
    assert refused(case, tmp, "--max-archive-bytes", "10000") == (
        "loo-replay: the archive decompresses to more than 10,000 bytes: over the archive's "
        "total size limit of 10,000 (raise it with --max-archive-bytes)"
    )
    # The same files zipped by another tool (no Unix modes, no fixed times) verify as well.
    top, files = members(case)
    assert write_zip(tmp_path / "again.zip", top, files).exists()
    result, _ = measured("verify", tmp_path / "again.zip", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert list(tmp.iterdir()) == []
