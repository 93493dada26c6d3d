"""Reading Markdown pages for the docs tests: sections by heading, tables as rows of cells,
fenced code blocks, backticked names, links and heading anchors."""

from __future__ import annotations

import re

_HEADING = re.compile(r"^(#{1,6}) (.*)$", flags=re.M)
_SEPARATOR = re.compile(r":?-+:?")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", flags=re.M | re.S)
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def section(text: str, heading: str) -> str:
    """The section whose heading starts with ``heading``, up to the next heading of the same
    or a higher level (its subsections included)."""
    for match in _HEADING.finditer(text):
        level, title = len(match.group(1)), match.group(2)
        if title.startswith(heading):
            rest = text[match.end() :]
            for later in _HEADING.finditer(rest):
                if len(later.group(1)) <= level:
                    return rest[: later.start()]
            return rest
    raise AssertionError(f"no section {heading!r}")


def tables(text: str) -> list[list[list[str]]]:
    """Every table in ``text``: rows of stripped cells, header first, separator row dropped."""
    found: list[list[list[str]]] = []
    rows: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = re.split(r"(?<!\\)\|", stripped.strip("|"))
            cells = [cell.strip() for cell in cells]
            if not all(_SEPARATOR.fullmatch(cell) for cell in cells):
                rows.append(cells)
        elif rows:
            found.append(rows)
            rows = []
    return found


def fenced(text: str, language: str) -> list[str]:
    """The bodies of the fenced code blocks tagged ``language``."""
    return [body for lang, body in _FENCE.findall(text) if lang == language]


def backticked(text: str) -> list[str]:
    """The names written in backticks, in order."""
    return re.findall(r"`([^`\n]+)`", text)


def links(text: str) -> list[str]:
    """The targets of the Markdown links, fenced code left out."""
    return _LINK.findall(_FENCE.sub("", text))


def anchor(title: str) -> str:
    """The anchor a heading gets, as GitHub makes it."""
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return slug.replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {anchor(title) for _, title in _HEADING.findall(_FENCE.sub("", text))}


def commands(text: str) -> list[tuple[str, str]]:
    """Every command line of the shell blocks (``sh``) and console blocks (``console``:
    the lines after ``$ ``), in order, a line ending ``\\`` joined to the next, each with
    the output a console block shows below it (empty for a shell block)."""
    found: list[tuple[str, str]] = []
    for lang, body in _FENCE.findall(text):
        if lang not in ("sh", "console"):
            continue
        joined = re.sub(r"\\\n\s*", "", body)
        for line in joined.splitlines():
            if lang == "sh" and line.strip():
                found.append((line.strip(), ""))
            elif line.startswith("$ "):
                found.append((line[2:].strip(), ""))
            elif found and lang == "console":
                command, shown = found[-1]
                found[-1] = (command, shown + line + "\n")
    return found
