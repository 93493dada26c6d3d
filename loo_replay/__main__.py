"""Where ``loo-replay`` and ``python -m loo_replay`` start: a Ctrl-C while the command line
is still being imported (a second or so) exits 130 without a word, as it does later
(docs/limits.md, "Interrupts and errors"); then the command line runs.  A bare
``--version`` is answered before the command line is imported at all: its answer needs
none of it (docs/performance.md, "Start-up")."""

from __future__ import annotations

import signal
import sys
from types import FrameType
from typing import NoReturn


def _starting(signum: int, frame: FrameType | None) -> NoReturn:
    raise SystemExit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _starting)
    if sys.argv[1:] == ["--version"]:
        from loo_replay import version_line

        print(version_line())
        return
    from loo_replay.cli import main as run

    signal.signal(signal.SIGINT, signal.default_int_handler)
    run()


if __name__ == "__main__":
    main()
