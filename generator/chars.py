"""Which characters record text may hold: the one home of the character classes that checks, pages and feeds use.

Record text comes from strangers' pull requests. Two classes never belong in it:
- hidden characters (REC006): invisible or direction-changing ones that make text show one thing and mean another;
- unsafe characters (REC007): every C0 control but tab and line feed, DEL, every C1 control (U+0080-U+009F, NEL
  included), surrogates, and the 66 non-characters (U+FDD0-U+FDEF and the last two code points of every plane).
  YAML parsers refuse most of them (mkdocs then silently drops a page's metadata), XML forbids several, and no
  real error message needs one.
Validation refuses both; the writers (pages, feeds) replace what is left by U+FFFD as a second line of defence,
so that output written from unchecked data is still well formed.
"""

from __future__ import annotations

import re
import unicodedata

HIDDEN = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]")

_NONCHARACTERS = "\ufdd0-\ufdef" + "".join(
    f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17)
)
UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff{_NONCHARACTERS}]")

REPLACEMENT = "\ufffd"


def is_noncharacter(code: int) -> bool:
    return 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE


def describe(char: str) -> str:
    """`U+0085 (NEL, a C1 control character)`: the code point and what it is, for a finding."""
    code = ord(char)
    if code < 0x20 or code == 0x7F:
        kind = "a C0 control character" if code != 0x7F else "the DEL control character"
    elif 0x80 <= code <= 0x9F:
        kind = "a C1 control character"
    elif 0xD800 <= code <= 0xDFFF:
        kind = "a lone surrogate"
    elif is_noncharacter(code):
        kind = "a non-character"
    else:
        kind = unicodedata.name(char, "a format character")
    return f"U+{code:04X} ({kind})"


def first_unsafe(text: str) -> re.Match[str] | None:
    return UNSAFE.search(text)


def scrub(text: str) -> str:
    """Text with every unsafe character replaced by U+FFFD (what a page or a feed may carry)."""
    if text.isascii() and text.isprintable():  # U+0020 to U+007E only: none is unsafe (most text, checked fast)
        return text
    return UNSAFE.sub(REPLACEMENT, text)
