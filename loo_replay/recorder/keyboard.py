"""The recorder's prompt at the keyboard: prompt_toolkit's line editor, with completion of
cards, players and commands, and keys and pastes that put nothing but typed text into the
line.  Imported only when the entries come from a keyboard: entries read from a pipe or a
file (``Recorder.run``'s ``lines``) need none of it, and prompt_toolkit costs ``record``
more than a third of its start (docs/performance.md, "Start-up")."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output

from loo_replay.engine.cards import display
from loo_replay.recorder.entry import matching_cards, typed
from loo_replay.recorder.judge import Stage, Standing
from loo_replay.recorder.reading import COMMANDS, DEAL_WORDS, LINE_CHARS


class Recording(Protocol):
    """What the prompt reads of the recording (``prompts.Recorder``): the session judged so
    far, for completion, and whether the line typed went past ``LINE_CHARS``."""

    standing: Standing
    too_long: bool


def keyboard_prompt(
    recorder: Recording, terminal: tuple[Input, Output] | None
) -> Callable[[str], str]:
    """The prompt of ``recorder``'s entries at the keyboard of ``terminal`` (the process's
    own when None)."""
    keys, screen = terminal or (None, None)
    session: PromptSession[str] = PromptSession(
        completer=_Completer(recorder), key_bindings=_typing(recorder), input=keys, output=screen
    )
    return session.prompt


def _typing(recorder: Recording) -> KeyBindings:
    """A paste (bracketed by the terminal) or a key goes into the line without escape
    sequences, control or format characters (a bidi override), so none is echoed
    (``typed``); escape sequences typed outside a bracketed paste are read by
    prompt_toolkit as keys, which edit nothing.  The line holds at most ``LINE_CHARS``:
    past them nothing more is inserted and the line is refused at Enter, so that a paste of
    any length costs a constant time a key (a longer line had made each key slower)."""
    bindings = KeyBindings()

    def insert(event: KeyPressEvent, data: str) -> None:
        buffer = event.current_buffer
        room = LINE_CHARS - len(buffer.text)
        if room <= 0 or recorder.too_long:
            recorder.too_long = True
            return
        text = typed(data)
        if len(text) > room:
            recorder.too_long = True
            text = text[:room]
        if text:
            buffer.insert_text(text)

    @bindings.add(Keys.BracketedPaste)
    def _(event: KeyPressEvent) -> None:
        insert(event, event.data)

    @bindings.add(Keys.Any)
    def _key(event: KeyPressEvent) -> None:
        insert(event, event.data * min(max(event.arg, 1), LINE_CHARS + 1))

    @bindings.add(Keys.Vt100MouseEvent)
    def _ignored(event: KeyPressEvent) -> None:
        """The recorder asks for no mouse: what reads as a mouse event is a pasted colour
        (``ESC [31m``), which prompt_toolkit's own handler fails to parse."""

    return bindings


class _Completer(Completer):
    """Cards the player may still hold, players, declarations and commands."""

    def __init__(self, recorder: Recording) -> None:
        self.recorder = recorder

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterator[Completion]:
        standing = self.recorder.standing
        ask = standing.ask
        word = document.get_word_before_cursor(WORD=True)
        first = not document.text_before_cursor[: -len(word) or None].strip()
        words: list[str] = []
        if ask.stage in (Stage.PLAY, Stage.TURN_UP, Stage.TRUMP_TURN) and word:
            for card in matching_cards(word, ask.cards):
                yield Completion(display(card), -len(word))
        if ask.stage is Stage.DECLARE:
            words += [a.value for a in ask.actions]
        if first:
            words += [*standing.header.players, *DEAL_WORDS, *(c for c in COMMANDS if len(c) > 1)]
        elif document.text.split()[0].lower() in ("show", "flush"):
            words += list(standing.header.players)
        for w in words:
            if word and w.lower().startswith(word.lower()):
                yield Completion(w, -len(word))
