"""Limits on what is read: a hand log is a stranger's file, so every reader stops at these.

Each limit is far above anything a real log comes near (a session line of a few hundred
deals is about 1 MB; a real deal has well under 200 events) and each is raised by one
command-line option (docs/limits.md, "Limits on what is read").  Past a limit the
document (a ``.json`` file, or one line of a ``.jsonl``) is rejected with a message that
names the limit and its option, and the rest of the input is read on.
"""

from __future__ import annotations

from loo_replay.engine.records import fields, record


@record(slots=True)
class Limits:
    """What one document may hold, after decompression."""

    document_bytes: int = 16 << 20  # a .json file or one line of a .jsonl: 3,000 deals or more
    gzip_ratio: int = 200  # decompressed over compressed bytes, once past RATIO_FLOOR
    depth: int = 100  # objects and arrays inside one another
    string_length: int = 1 << 20  # characters of one string, keys included
    number_length: int = 100  # characters of one number as written
    deal_events: int = 1000  # events of one deal

    def __post_init__(self) -> None:
        for name in fields(self):
            if getattr(self, name) < 1:
                raise ValueError(f"the limit {name} must be 1 or more")


LIMITS = Limits()
# The option that raises each limit, for messages and for the command line (cli/options.py).
OPTIONS = {name: "--max-" + name.replace("_", "-") for name in fields(Limits)}
# Decompressed bytes read before the ratio is judged: a small file's gzip header and
# dictionary weigh too much in its ratio to say anything.
RATIO_FLOOR = 1 << 20
# Python's parser stops at about 1,000 levels and orjson's writer at 254, so --max-depth
# stops below both.
MOST_DEPTH = 200


def over(name: str, limit: int, what: str) -> str:
    """Why a document is rejected: ``what`` it holds, past the limit ``name`` of ``limit``,
    and the option that raises it."""
    label = name.replace("_", " ")
    return f"{what}: over the {label} limit of {limit:,} (raise it with {OPTIONS[name]})"
