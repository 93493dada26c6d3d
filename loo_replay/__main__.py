"""Where ``loo-replay`` and ``python -m loo_replay`` start: a Ctrl-C while the command line
is still being imported (a second or so) exits 130 without a word, as it does later
(docs/limits.md, "Interrupts and errors"); then the command line runs."""

from __future__ import annotations

import signal
from types import FrameType
from typing import NoReturn


def _starting(signum: int, frame: FrameType | None) -> NoReturn:
    raise SystemExit(130)


def main() -> None:
    signal.signal(signal.SIGINT, _starting)
    from loo_replay.cli import main as run

    signal.signal(signal.SIGINT, signal.default_int_handler)
    run()


if __name__ == "__main__":
    main()
