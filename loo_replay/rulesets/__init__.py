"""Built-in rulesets (TOML files in the package) and option resolution.

Options are resolved in layers, each overriding the one before: the ruleset
(``--ruleset`` on the command line, else ``session.ruleset``, else
``three-card``), then ``session.rules``, then ``--set`` from the command line.
A ruleset file may leave options out, a built-in one where its source is silent: they take
their defaults (``OptionSpec.default``, three-card's values), and ``loo-replay rulesets NAME``
shows them as "default (source silent)" (docs/rules.md, "The built-in rulesets").
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import orjson

from loo_replay import package_file
from loo_replay.engine.options import OPTION_SPECS, OptionError, Options, parse_option_text
from loo_replay.engine.records import field, record
from loo_replay.errors import InputError

DEFAULT = "three-card"
# A ruleset file (``--ruleset FILE``) is a page of TOML, not a log: no option raises this
# (docs/limits.md).
RULESET_BYTES = 1 << 20


@record
class Ruleset:
    name: str
    description: str
    source: str
    options: Options
    sources: Mapping[str, str] = field(default_factory=dict)
    # The options the file names; every other one has its default.
    named: frozenset[str] = frozenset(OPTION_SPECS)


class RulesetError(InputError, ValueError):
    """A ruleset that does not exist or cannot be read."""


def _flatten(data: Mapping[str, Any], where: str) -> dict[str, object]:
    values: dict[str, object] = {}
    for section, table in data.items():
        if section in ("name", "description", "source", "sources"):
            continue
        if not isinstance(table, dict):
            raise RulesetError(f"{where}: [{section}] must be a table of options")
        for key, value in table.items():
            values[f"{section}.{key}"] = value
    return values


def _from_toml(data: Mapping[str, Any], where: str, base: Options | None) -> Ruleset:
    values = _flatten(data, where)
    try:
        options = base.override(values) if base else Options.from_dotted(values)
    except OptionError as exc:
        raise RulesetError(f"{where}: {exc}") from None
    return Ruleset(
        name=str(data.get("name", where)),
        description=str(data.get("description", "")),
        source=str(data.get("source", "")),
        options=options,
        sources=dict(data.get("sources", {})),
        named=frozenset(values),
    )


@cache
def builtin_names() -> tuple[str, ...]:
    files = package_file("rulesets").iterdir()
    return tuple(sorted(p.name[:-5] for p in files if p.name.endswith(".toml")))


@cache
def builtin(name: str) -> Ruleset:
    if name not in builtin_names():
        raise RulesetError(
            f"unknown ruleset {name!r}; built-in rulesets: {', '.join(builtin_names())}"
        )
    text = package_file("rulesets", f"{name}.toml").read_text("utf-8")
    return _from_toml(tomllib.loads(text), f"{name}.toml", None)


def load(spec: str) -> Ruleset:
    """A built-in name, or the path of a TOML ruleset file."""
    if spec in builtin_names():
        return builtin(spec)
    path = Path(spec)
    if spec.endswith(".toml") or path.exists():
        try:
            data = tomllib.loads(_read_small(path).decode("utf-8"))
        except OSError as exc:
            raise RulesetError(f"cannot read ruleset file {spec}: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise RulesetError(f"{spec} is not UTF-8 (byte {exc.start})") from None
        except tomllib.TOMLDecodeError as exc:
            raise RulesetError(f"{spec} is not valid TOML: {exc}") from None
        except RecursionError:  # tomllib reads nested arrays and tables by recursion
            raise RulesetError(
                f"{spec} nests arrays or tables too deeply to be read: a ruleset's options "
                "are numbers, words and short lists"
            ) from None
        return _from_toml(data, spec, builtin(DEFAULT).options)
    raise RulesetError(f"unknown ruleset {spec!r}; built-in rulesets: {', '.join(builtin_names())}")


def _read_small(path: Path) -> bytes:
    """A ruleset file's bytes: a regular file of at most ``RULESET_BYTES`` (a device such as
    ``/dev/zero`` or a pipe would be read without end)."""
    with path.open("rb") as stream:
        if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
            raise RulesetError(f"ruleset file {path} is not a regular file")
        data = stream.read(RULESET_BYTES + 1)
    if len(data) > RULESET_BYTES:
        raise RulesetError(
            f"ruleset file {path} is larger than {RULESET_BYTES:,} bytes: a ruleset is a page"
            " of TOML"
        )
    return data


@record
class RuleChoice:
    """What the command line says about rules: a ruleset and ``--set`` overrides."""

    ruleset: Ruleset | None = None
    overrides: Mapping[str, object] = field(default_factory=dict)


def parse_settings(settings: list[str] | tuple[str, ...]) -> dict[str, object]:
    """``--set OPTION=VALUE`` items as overrides; ``OptionError`` names a bad option or value,
    ``ValueError`` an item without ``=``."""
    overrides: dict[str, object] = {}
    for item in settings:
        name, sep, text = item.partition("=")
        if not sep:
            raise ValueError(f"{item!r} is not OPTION=VALUE (e.g. stakes.loo=unlimited)")
        overrides[name.strip()] = parse_option_text(name.strip(), text)
    return overrides


def loaded_choice(ruleset: str | None, rules: str | None) -> RuleChoice:
    """The rules a session was loaded under, rebuilt from the database's ``sessions.rules``
    (JSON text): every option both as the ruleset and as overrides, so that neither the
    log's ruleset nor its own rules can change them.  ``OptionError``/``ValueError`` when
    the text is not options."""
    if rules is None:
        return RuleChoice()
    values = orjson.loads(rules)
    return RuleChoice(Ruleset(ruleset or "?", "", "", Options.from_dotted(values)), values)


@cache
def _resolve_cached(base: str, session_rules: tuple[tuple[str, Any], ...]) -> Options:
    return builtin(base).options.override(dict(session_rules))


def resolve(
    choice: RuleChoice, session_ruleset: str | None, session_rules: Mapping[str, object]
) -> tuple[str, Options]:
    """(ruleset name, options) for a session; ``OptionError`` names a bad session rule."""
    if choice.ruleset is not None:
        name = choice.ruleset.name
        options = choice.ruleset.options.override(session_rules)
    else:
        name = session_ruleset or DEFAULT
        options = _resolve_cached(name, tuple(sorted(session_rules.items(), key=lambda kv: kv[0])))
    if choice.overrides:
        options = options.override(choice.overrides)
    return name, options


__all__ = ["OPTION_SPECS", "RuleChoice", "Ruleset", "RulesetError", "builtin", "load", "resolve"]
