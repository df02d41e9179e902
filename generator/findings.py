"""One Finding type for every stage, and its three output formats (text, json, github annotations)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Iterable

from .codes import CODES


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    col: int
    code: str
    pointer: str
    message: str
    severity: str
    hint: str

    @property
    def name(self) -> str:
        return CODES[self.code].name


def make(code: str, path: str, pointer: str, message: str, pos: tuple[int, int] = (1, 1), hint: str | None = None) -> Finding:
    """Build a finding for `code`; severity and default hint come from the catalogue."""
    info = CODES[code]
    return Finding(path, pos[0], pos[1], code, pointer, _one_line(message), info.severity, hint or info.hint)


def _one_line(text: str) -> str:
    # A finding is one line: a hostile value must not forge further lines (or annotations) in the output.
    return text.replace("\r", "\\r").replace("\n", "\\n")


# Findings of one code listed per file; past this, one summary finding says how many more there are. A hostile
# file with 45,000 unknown keys then prints 21 lines, not 45,000 (CI logs and annotations stay readable).
MAX_PER_CODE = 20


def capped(findings: list[Finding], limit: int = MAX_PER_CODE) -> list[Finding]:
    """At most `limit` findings of each (file, code), in their order, then one summary finding per group cut."""
    kept: list[Finding] = []
    extra: dict[tuple[str, str], list[Finding]] = {}
    seen: dict[tuple[str, str], int] = {}
    for f in findings:
        key = (f.path, f.code)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= limit:
            kept.append(f)
        else:
            extra.setdefault(key, []).append(f)
    for (path, code), rest in extra.items():
        first = rest[0]
        kept.append(make(code, path, first.pointer, f"... and {len(rest)} more {code} findings in this file (the first {limit} are listed)", (first.line, first.col)))
    return kept


def fails(findings: Iterable[Finding], strict: bool) -> bool:
    """True when the findings should fail the run (errors always; warnings too under --strict)."""
    return any(f.severity == "error" or strict for f in findings)


def summary(record_count: int, findings: list[Finding]) -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    return f"{_n(record_count, 'record')}, {_n(errors, 'error')}, {_n(warnings, 'warning')}"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def format_text(findings: list[Finding], record_count: int) -> str:
    lines = []
    for f in sorted(findings):
        lines.append(f"{f.path}:{f.line}:{f.col}: {f.severity}[{f.code}] {f.pointer or '/'}: {f.message}")
        lines.append(f"  hint: {f.hint}")
    lines.append(summary(record_count, findings))
    return "\n".join(lines) + "\n"


def format_json(findings: list[Finding], record_count: int) -> str:
    body = {
        "records": record_count,
        "errors": sum(f.severity == "error" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
        "findings": [{**asdict(f), "name": f.name} for f in sorted(findings)],
    }
    return json.dumps(body, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def _gh_escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(findings: list[Finding], record_count: int) -> str:
    lines = []
    for f in sorted(findings):
        level = "error" if f.severity == "error" else "warning"
        title = _gh_escape(f"{f.code} {f.name}", prop=True)
        msg = _gh_escape(f"{f.pointer or '/'}: {f.message}\nhint: {f.hint}")
        lines.append(f"::{level} file={_gh_escape(f.path, True)},line={f.line},col={f.col},title={title}::{msg}")
    lines.append(summary(record_count, findings))
    return "\n".join(lines) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "github": format_github}
