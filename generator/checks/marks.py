"""`errdex mark-translated`: record that a record's Chinese texts were reviewed against its English ones.

The marks live in the record's last key, `zh_fingerprints`, which this command rewrites in place; the rest of
the file is left byte for byte as it was.
"""

from __future__ import annotations

import re
from pathlib import Path

from .. import safefs
from ..records.bilingual import text_pairs
from .translation import fingerprint
from ..records.load import RawRecord
from ..yamlout import mapping_lines

_BLOCK = re.compile(r"^zh_fingerprints:.*\n(?:(?:[ \t]+.*|[ \t]*#.*|[ \t]*)\n)*", re.M)
HEADER = "zh_fingerprints:  # by `errdex mark-translated`: the English each Chinese text was reviewed against\n"


def fingerprints(data: dict) -> dict[str, str]:
    return {en_ptr: fingerprint(en_text) for en_ptr, _, en_text, _ in text_pairs(data)}


def marked_text(text: str, marks: dict[str, str]) -> str:
    """The file's text with its zh_fingerprints block replaced (or added at the end)."""
    body = _BLOCK.sub("", text if text.endswith("\n") else text + "\n")
    if not marks:
        return body
    # Written by the emitter: a pointer holds a record's own keys (os_specific's), which may hold anything. The
    # marks are quoted, as they always were, so that a hash of digits only stays text.
    lines = mapping_lines(sorted((str(pointer), str(mark)) for pointer, mark in marks.items()), "'")
    return body + HEADER + "".join(f"  {line}\n" for line in lines.split("\n")[:-1])


def mark_record(raw: RawRecord, path: Path, root: Path | None = None) -> int:
    """Rewrite one record file's marks; returns how many texts are marked. Never writes through a symbolic
    link: not the file, nor any folder between `root` (default: the file's folder) and it."""
    marks = fingerprints(raw.data)
    safefs.write_text(path, marked_text(raw.text, marks), root if root is not None else path.parent)
    return len(marks)
