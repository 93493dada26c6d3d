"""Fuzzing the reader and the engine with broken logs (issue: bad input never crashes).

Hypothesis mutates real simulated sessions — fields deleted, values swapped for
other types, events moved, duplicated or dropped, cards misspelled, numbers made
huge, strings made long or hostile — and every mutant must audit without an
exception, account for every deal, and point every error at a place that exists.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loo_replay.logs.reader import Document
from loo_replay.rulesets import RuleChoice, builtin
from loo_replay.run.audit import SessionReport, UnreadableDocument, audit_document
from loo_replay.simulate import Simulator

BASES = [
    Simulator(builtin(name).options, name, 4, seed, 0.3, 0.2).session(f"fuzz-{name}", 4)
    for seed, name in enumerate(("three-card", "five-card", "hoyle", "modern-irish"))
]
NASTY: list[Any] = [
    None,
    True,
    0,
    -1,
    1.5,
    2**60,
    "",
    "x" * 10_000,
    "<script>alert(1)</script>",
    "\u202eevil\u0000\x1b[31m",
    "../../etc/passwd",
    [],
    {},
    [[[[[]]]]],
    {"type": "play"},
    "10H",
    "1H",
    "JC",
]


def paths_of(value: Any, prefix: str = "") -> list[str]:
    """Every JSON pointer inside ``value``."""
    out = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            token = str(key).replace("~", "~0").replace("/", "~1")
            out += paths_of(child, f"{prefix}/{token}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            out += paths_of(child, f"{prefix}/{i}")
    return out


def resolve(doc: Any, pointer: str) -> bool:
    node = doc
    for token in pointer.split("/")[1:] if pointer else []:
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return True


@st.composite
def mutants(draw: st.DrawFn) -> Any:
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    for _ in range(draw(st.integers(1, 4))):
        pointers = paths_of(doc)
        target = draw(st.sampled_from(pointers))
        action = draw(st.sampled_from(["delete", "replace", "duplicate", "move", "shuffle"]))
        doc = mutate(doc, target, action, draw)
    return doc


def mutate(doc: Any, pointer: str, action: str, draw: st.DrawFn) -> Any:
    if not pointer:
        return copy.deepcopy(draw(st.sampled_from(NASTY))) if action == "replace" else doc
    *parents, last = pointer.split("/")[1:]
    node = doc
    for token in parents:
        node = node[int(token)] if isinstance(node, list) else node[token]
    key: Any = int(last) if isinstance(node, list) else last
    if action == "delete":
        del node[key]
    elif action == "replace":
        node[key] = copy.deepcopy(draw(st.sampled_from(NASTY)))
    elif isinstance(node, list) and action == "duplicate":
        node.insert(key, copy.deepcopy(node[key]))
    elif isinstance(node, list) and action == "move" and len(node) > 1:
        node.insert(draw(st.integers(0, len(node) - 1)), node.pop(key))
    elif isinstance(node, list) and action == "shuffle":
        node[:] = draw(st.permutations(node))
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_broken_logs_never_crash_and_every_deal_is_accounted_for(doc: Any) -> None:
    item = audit_document(Document("fuzz.json", None, b"", doc), RuleChoice())
    if isinstance(item, UnreadableDocument):
        assert item.message and resolve(doc, item.path)
        return
    assert isinstance(item, SessionReport)
    assert len(item.deals) == len(doc["deals"])
    for deal in item.deals:
        assert deal.status in ("audited", "misdeal", "rejected")
        if deal.status == "rejected":
            assert deal.errors
        for error in deal.errors + item.errors:
            assert error.message
            assert resolve(doc, error.path), (error.path, error.message)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_are_an_unreadable_document_not_a_crash(raw: bytes) -> None:
    from loo_replay.logs.reader import decode

    item = audit_document(decode(Document("bytes.jsonl", 1, raw)), RuleChoice())
    assert isinstance(item, UnreadableDocument | SessionReport)
