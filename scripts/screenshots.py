"""The explorer's screenshots in docs/images/ (`make screenshots`; never run by the tests).

Loads the sample logs into a fresh database in a temporary folder (``audit``, which
runs the fairness tests too), serves it with the real ``loo-replay serve`` on
a free port, and saves a PNG of each kind of page, as Debian's Chromium
(Playwright) draws it at 1280 px wide, and the sessions list and a replay at
390 px, a phone's width.
"""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlencode

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
CHROMIUM = "/usr/bin/chromium"
_URL = re.compile(r"at (http://\S+/) \(Ctrl-C stops\)")
WHOLE = ("sessions", "players", "findings", "not-found")


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "loo_replay", *args]


def shot(page: Page, url: str, name: str, plotted: bool = False) -> None:
    page.goto(url)
    if plotted:  # the report's figures are drawn once plotly.js has run
        page.wait_for_function("document.body.getAttribute('data-plotted') !== null")
    path = IMAGES / f"explorer-{name}.png"
    # The lists whole; the reports' pages, a replay and a phone's view as a screen shows them
    # (whole, a page of figures is a PNG of megabytes).
    page.screenshot(path=str(path), full_page=name in WHOLE)
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "loo.duckdb"
        out = Path(tmp) / "reports"  # audit refreshes the fairness tests; its pages are not used
        subprocess.run(cli("audit", "sample_logs", "--db", str(db), "--out", str(out)), cwd=ROOT)
        server = subprocess.Popen(
            cli("serve", "--db", str(db), "--port", "0"),
            cwd=ROOT,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            said = b""
            assert server.stderr is not None
            while not (found := _URL.search(said.decode())):
                if server.poll() is not None:
                    raise SystemExit(said.decode())
                if select.select([server.stderr], [], [], 0.5)[0]:
                    said += os.read(server.stderr.fileno(), 65536)
            url = found[1]
            revokes = "revokes-2026-11-22"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                shot(page, url + "?" + urlencode({"with": "violations"}), "sessions")
                shot(page, url + "players", "players")
                shot(page, url + "findings?" + urlencode({"code": "follow-suit"}), "findings")
                shot(page, url + "session?" + urlencode({"id": revokes}), "session", True)
                replay = url + "replay?" + urlencode({"session": revokes, "deal": 3})
                shot(page, replay, "replay")
                shot(page, url + "all-sessions.html", "across", True)
                shot(page, url + "fairness.html", "fairness", True)
                shot(page, url + "no-such-page", "not-found")
                phone = browser.new_page(viewport={"width": 390, "height": 844})
                shot(phone, url, "sessions-390")
                shot(phone, replay, "replay-390")
                browser.close()
        finally:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(timeout=60)


if __name__ == "__main__":
    main()
