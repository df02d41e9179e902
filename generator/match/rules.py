"""How the matcher ranks what it finds: the weights, and what it knows of each pattern. The one place.

`errdex match` (generator.match.engine) reads them from here, or from the `match.json` it is given; the site's worker
reads them from `match.json` only, which carries `rules` (below) and, for each pattern, its analysis
(`pattern_analysis`). `tests/fixtures/match-conformance.json` holds logs with the ranking both must give.

A result's score: the pattern's specificity (the literal characters it spells out), plus `exception_bonus` when
the record's exception class is named on the line, plus `anchored_bonus` for a pattern anchored with `^` or `$`,
plus one per further occurrence up to `repeat_bonus_cap`, minus `retired_penalty` for a retired record. Ties go
to the earlier line, then the id. A catalog entry gains `release_has_bonus` when the release the log comes from
raises its message and loses `release_lacks_penalty` when it does not. A result keeps the numbers of its first `lines_kept` lines.
"""

from __future__ import annotations

from typing import Any

RULES: dict[str, int] = {
    "exception_bonus": 25,
    "anchored_bonus": 5,
    "repeat_bonus_cap": 10,
    "retired_penalty": 50,
    "lines_kept": 20,
    # a catalog entry, when the log's release of its project is known (the paste page's version box,
    # `errdex match --catalog --version`): that release raises the message, or it does not
    "release_has_bonus": 10,
    "release_lacks_penalty": 30,
}


def rules_from(doc: Any) -> dict[str, int] | None:
    """The `rules` of a match.json document, when it has every one as a whole number; else None."""
    rules = doc.get("rules") if isinstance(doc, dict) else None
    if not isinstance(rules, dict):
        return None
    out = {k: rules.get(k) for k in RULES}
    return out if all(isinstance(v, int) and not isinstance(v, bool) for v in out.values()) else None


def exception_name(exception_class: str | None) -> str | None:
    """What to look for on a line to say the exception is named there: the class without its module
    (`servekit.CacheOOMError` -> `CacheOOMError`; `c10::Error` -> `Error`)."""
    if not exception_class:
        return None
    return exception_class.rsplit(".", 1)[-1].rsplit(":", 1)[-1] or None


def pattern_analysis(regex: str, exception_class: str | None = None) -> dict[str, Any]:
    """What the matchers need to know of a pattern beyond the pattern itself (generator.match.portable derives it):
    its JavaScript spelling, its prefilter literals, its specificity, whether it is anchored, and the exception
    name to look for on the line."""
    from .portable import analyse

    a = analyse(regex)
    out: dict[str, Any] = {
        "js_source": a.js_source,
        "js_flags": a.js_flags,
        "literals": a.literals,
        "specificity": a.specificity,
        "anchored": a.anchored,
    }
    name = exception_name(exception_class)
    if name is not None:
        out["exception_name"] = name
    return out


def match_document(patterns: list[dict[str, Any]]) -> dict[str, Any]:
    """match.json: the rules, then every pattern (each with its `pattern_analysis`)."""
    return {"count": len(patterns), "rules": dict(RULES), "patterns": patterns}
