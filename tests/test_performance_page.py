"""docs/performance.md holds the current figures in at most 400 lines (issue 52); the long
tables and the runs behind them live in benchmarks/results/*.md, which it links, and every
link between the two resolves, anchors included."""

from __future__ import annotations

import re
from pathlib import Path

from md_helpers import anchor, links

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "performance.md"
RESULTS = ROOT / "benchmarks" / "results"
HEADING = re.compile(r"^#+ (.+)$", re.M)


def test_the_page_stays_at_most_400_lines() -> None:
    assert len(PAGE.read_text("utf-8").splitlines()) <= 400


def _anchors(path: Path) -> set[str]:
    return {anchor(h) for h in HEADING.findall(path.read_text("utf-8"))}


def test_the_page_links_its_results_and_every_link_between_them_resolves() -> None:
    linked = [t for t in links(PAGE.read_text("utf-8")) if "benchmarks/results/" in t]
    assert "../benchmarks/results/latest.md" in linked
    hand_written = {"ingest.md", "test-time.md", "judging.md", "collusion-speed.md", "tried.md"}
    assert hand_written <= {t.split("#")[0].rsplit("/", 1)[1] for t in linked}
    for source in [PAGE, *(RESULTS / name for name in sorted(hand_written))]:
        for target in links(source.read_text("utf-8")):
            if "://" in target:
                continue
            file, _, fragment = target.partition("#")
            path = (source.parent / file).resolve() if file else source
            assert path.exists(), (source.name, target)
            if fragment and path.suffix == ".md":
                assert fragment in _anchors(path), (source.name, target)
