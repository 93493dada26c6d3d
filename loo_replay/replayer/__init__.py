"""Replay one deal trick by trick: steps from the engine, rendered for a terminal or a browser.

``steps.build_replay`` snapshots the engine's ``Replay`` after every event;
``terminal`` and ``html`` render those steps; ``commands.replay`` is the CLI.
"""
