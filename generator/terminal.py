"""What errdex writes to a terminal: text from data (records, the catalog, a match.json, a fetched API, the log
being matched, file names) shown with every character that could steer the terminal as a visible escape.

A terminal obeys what it is sent: ESC and CSI sequences clear the screen or move the cursor, OSC 8 plants a
hyperlink, BEL rings, backspace and carriage return overwrite what was printed, a direction override (U+202E)
reverses what follows. Every character of the classes generator/chars.py defines (unsafe: C0 controls, DEL,
C1 controls, surrogates, non-characters; hidden: invisible and direction-changing ones) and every other one
Python does not call printable (line and paragraph separators, other format characters, ...) is written as
`\\uXXXX` (a pair of them above U+FFFF): visible, and valid inside a JSON string, so JSON output stays JSON and
reads back to the same text. `shown` is for a value printed on a line of its own making (a newline in it is
escaped too, so it cannot forge a line); `block` is for whole output whose lines are ours.

The CLI writes through `Escaping` streams (generator/cli.py), so output that skipped `shown` is still safe.
"""

from __future__ import annotations

import json
import re
from typing import IO, Any

from . import chars

_ASCII_CONTROLS = re.compile("[\x00-\x1f\x7f]")


def _escape(char: str) -> str:
    code = ord(char)
    if code > 0xFFFF:  # as JSON writes it: a surrogate pair
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def _steers(char: str, keep: str) -> bool:
    if char in keep:
        return False
    return not char.isprintable() or bool(chars.UNSAFE.match(char) or chars.HIDDEN.match(char))


def _render(text: str, keep: str) -> str:
    if text.isascii():  # the common case: only the ASCII controls to look at
        return _ASCII_CONTROLS.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)
    return "".join(_escape(c) if c != " " and _steers(c, keep) else c for c in text)


def shown(value: Any) -> str:
    """One data-derived value as a terminal may show it: every control, invisible or direction-changing
    character (tab and newline included) as a `\\uXXXX` escape."""
    return _render(str(value), "")


def block(text: str) -> str:
    """Output text whose line feeds and tabs are ours: everything else as `shown` escapes it."""
    return _render(text, "\n\t")


def json_text(body: Any) -> str:
    """JSON for a terminal: readable Unicode, with the characters `shown` escapes as JSON `\\u` escapes (the
    same text to a JSON reader)."""
    return block(json.dumps(body, ensure_ascii=False, indent=2)) + "\n"


class Escaping:
    """A text stream that writes everything through `block`: the last line of defence for a command's output."""

    def __init__(self, stream: IO[str]):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(block(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:  # flush, fileno, isatty, encoding, buffer, ...
        return getattr(self._stream, name)
