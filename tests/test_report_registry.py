"""The registry of report pages (``reports/registry.py``) is the one list: every page in it
is written by ``loo-replay report``, linked from the index's navigation and from the
explorer's, and served by the real ``loo-replay serve``; and no page module names its file
itself."""

from __future__ import annotations

import importlib
import re
import urllib.request
from pathlib import Path

from db_helpers import ROOT, run
from explorer_helpers import SAMPLE_LOGS, ingested, serving

from loo_replay.reports import registry

LINK = re.compile(r"<nav>(.*?)</nav>", re.S)


def _nav_links(html: str) -> list[str]:
    found = LINK.search(html)
    assert found, "the page has a navigation"
    return re.findall(r'href="([^"]+)"', found[1])


def test_every_registered_page_is_built_linked_from_both_navigations_and_served(
    tmp_path: Path,
) -> None:
    db = ingested(tmp_path / "loo.duckdb", *SAMPLE_LOGS)
    out = tmp_path / "reports"
    result = run("report", "--db", db, "--out", out)
    assert result.returncode == 0, result.stderr
    index = (out / "index.html").read_text()
    assert _nav_links(index) == [p.file for p in registry.PAGES]
    for page in registry.PAGES:
        html = (out / page.file).read_text()
        assert f"<h1>{page.heading}</h1>" in html
        # its navigation: the index, then every page listed before it
        earlier = registry.PAGES[: registry.PAGES.index(page)]
        assert _nav_links(html) == ["index.html", *(p.file for p in earlier)]
    with serving(db) as server:
        url = server.wait_for_url()
        with urllib.request.urlopen(url) as response:
            sessions = response.read().decode()
        explorer_nav = _nav_links(sessions)
        for page in registry.PAGES:
            assert "/" + page.file in explorer_nav
            with urllib.request.urlopen(url + page.file) as response:
                assert response.status == 200
                assert f"<h1>{page.heading}</h1>" in response.read().decode()


def test_each_builder_named_exists_and_no_page_module_spells_a_registered_file() -> None:
    for page in registry.PAGES:
        module, _, name = page.builder.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), page.builder
    for path in (ROOT / "loo_replay").rglob("*.py"):
        if path.name == "registry.py":
            continue
        source = path.read_text()
        for page in registry.PAGES:
            assert f'"{page.file}"' not in source, f"{path} names {page.file}"
            assert f'"/{page.file}"' not in source, f"{path} names {page.file}"
