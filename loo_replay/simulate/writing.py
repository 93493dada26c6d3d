"""A simulation as hand logs (docs/log-format.md) and its ground truth beside them, byte for
byte the same for the same seed."""

from __future__ import annotations

import gzip
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from loo_replay.engine.cards import canonical
from loo_replay.engine.model import Declare, Event, Exchange, Play, ShowFlush
from loo_replay.engine.session import DealAudit
from loo_replay.files import replacing, write_atomic
from loo_replay.logs.reader import TRUTH_SUFFIX
from loo_replay.simulate.truth import Truth


def deal_json(
    number: int,
    dealer: str,
    seats: tuple[str, ...],
    hands: list[list[int]],
    miss: list[int] | None,
    turn_up: int | None,
) -> dict[str, Any]:
    """A deal's record as dealt; its events and its recorded block are added after play."""
    out: dict[str, Any] = {"deal": number, "dealer": dealer}
    out["hands"] = {p: [canonical(c) for c in h] for p, h in zip(seats, hands, strict=True)}
    if miss is not None:
        out["miss"] = [canonical(c) for c in miss]
    if turn_up is not None:
        out["turn_up"] = canonical(turn_up)
    return out


def event_json(event: Event, seats: tuple[str, ...]) -> dict[str, Any]:
    if isinstance(event, Declare):
        return {"type": "declare", "player": seats[event.seat], "action": event.action}
    if isinstance(event, Play):
        play = {"type": "play", "player": seats[event.seat], "card": canonical(event.card)}
        if event.announce:
            play["announce"] = "pam_be_civil"
        return play
    if isinstance(event, Exchange):
        return {
            "type": "exchange",
            "player": seats[event.seat],
            "discard": [canonical(c) for c in event.discard],
            "draw": [canonical(c) for c in event.draw],
        }
    if isinstance(event, ShowFlush):
        return {"type": "show_flush", "player": seats[event.seat]}
    return {"type": "turn_up", "card": canonical(event.card)}


def recorded_json(audit: DealAudit) -> dict[str, Any]:
    """The ``recorded`` block of a deal: what the session audit expects."""
    rec: dict[str, Any] = {"pool_start": audit.pool_start}
    for name in ("tricks", "payouts", "looed", "penalties"):
        value = getattr(audit, name)
        if value is not None:
            rec[name] = dict(value)
    rec["pool_next"] = audit.pool_next
    if audit.stacks is not None:
        rec["stacks"] = dict(audit.stacks)
    return rec


def write_simulation(out: Path, docs: Iterable[dict[str, Any]], count: int, truth: Truth) -> Path:
    """Write ``docs`` as the file name says (.json, .jsonl, .jsonl.gz) and the ground truth
    beside it; returns the truth file's path."""
    name = out.name.lower()
    if name.endswith(".json") and not name.endswith(TRUTH_SUFFIX):
        if count != 1:
            raise ValueError(f"{out}: a .json file holds one session; use .jsonl for {count}")
        (doc,) = list(docs)
        write_atomic(out, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    elif name.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
        gz = name.endswith(".gz")
        # mtime=0 keeps gzip output byte-identical for the same seed
        with replacing(out) as raw:
            sink: gzip.GzipFile | BinaryIO = (
                gzip.GzipFile(filename="", fileobj=raw, mode="wb", mtime=0) if gz else raw
            )
            for doc in docs:
                sink.write(orjson.dumps(doc) + b"\n")
            if gz:
                sink.close()  # the gzip trailer; ``replacing`` closes the file itself
    else:
        raise ValueError(f"{out}: name the output .json, .jsonl or .jsonl.gz")
    stem = out.name[: -len(".gz")] if name.endswith(".gz") else out.name
    truth_path = out.with_name(stem.rsplit(".", 1)[0] + TRUTH_SUFFIX)
    write_atomic(truth_path, orjson.dumps(truth.as_json(), option=orjson.OPT_INDENT_2) + b"\n")
    return truth_path
