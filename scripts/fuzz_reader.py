"""Coverage-guided fuzzing of the hand-log readers with atheris (docs/limits.md, "Fuzzing
the readers"): each input is written as a ``.json``, ``.jsonl`` or gzip file, read and
audited within small limits, and must give sessions or rejected documents (or a
``ReadError`` for a file that breaks off), never another exception.

    .venv/bin/pip install atheris        # not a dependency of loo-replay
    mkdir fuzz-corpus                    # seeds: the sample logs, each as a .json (byte 0)
    for f in sample_logs/*.json; do (printf '\0'; cat "$f") > "fuzz-corpus/${f##*/}"; done
    LOO_REPLAY_PURE=1 .venv/bin/python scripts/fuzz_reader.py -max_total_time=300 fuzz-corpus/

Arguments are libFuzzer's; a crash leaves its input in ``crash-*`` to run again with
``.venv/bin/python scripts/fuzz_reader.py crash-…``.  With ``LOO_REPLAY_PURE=1`` the
Python source is fuzzed, else the compiled modules.  tests/hostile/test_reader_properties.py
checks the same property with Hypothesis in every ``make test``.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path

import atheris  # type: ignore[import-untyped]

from loo_replay.logs.limits import Limits
from loo_replay.logs.reader import ReadError, read_documents
from loo_replay.rulesets import RuleChoice
from loo_replay.run.audit import SessionReport, UnreadableDocument, audit_document

# Small enough that fuzzed inputs cross every limit, large enough for the sample logs.
LIMITS = Limits(
    document_bytes=100_000,
    gzip_ratio=8,
    depth=8,
    string_length=64,
    number_length=20,
    deal_events=60,
)
NAMES = ("log.json", "log.jsonl", "log.json.gz", "log.jsonl.gz")
FOLDER = Path(tempfile.mkdtemp(prefix="loo-fuzz-"))
CHOICE = RuleChoice()


def one_input(data: bytes) -> None:
    """The first byte picks the file's name and whether it is gzipped; the rest is the file."""
    if not data:
        return
    name = NAMES[data[0] % len(NAMES)]
    body = data[1:]
    path = FOLDER / name
    packed = name.endswith(".gz") and data[0] & 4
    path.write_bytes(gzip.compress(body) if packed else body)
    try:
        for doc in read_documents(path, parse=False, limits=LIMITS):
            assert len(doc.raw) <= LIMITS.document_bytes, len(doc.raw)
            for plain in (False, True):
                item = audit_document(doc, CHOICE, plain=plain, keep=False, limits=LIMITS)
                assert isinstance(item, SessionReport | UnreadableDocument), item
    except ReadError:
        pass  # not gzip, or broken off: said in one line


def main() -> None:
    atheris.instrument_all()  # loo_replay's own importer (LOO_REPLAY_PURE) passes atheris's by
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
