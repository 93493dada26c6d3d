"""The conformance checks compare the package with the project's specification in
``../shared`` (outside the repository); they share the Markdown readers of ``tests/``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
