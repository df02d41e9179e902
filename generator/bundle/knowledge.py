"""What every tool answers from (`Knowledge`: records, catalog, matcher, search text) and the argument checks
and paging they share. Bad arguments raise `ToolInputError`, whose message says what was wrong and what is
accepted; the server turns it into a tool error.
"""

from __future__ import annotations

import difflib
import functools
import re
import threading
import unicodedata
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..records.vocabulary import ID_PATTERN
from .apidata import ApiData
from ..catalog.reader import Catalog

if TYPE_CHECKING:  # the engine is imported when a matcher is made, not with the argument checks the MCP server loads first
    from ..match.engine import Matcher, Pattern

DEFAULT_LIMIT = 5
MAX_LIMIT = 50
MAX_CURSOR = 1_000_000
LANGS = ("en", "zh")


class ToolInputError(ValueError):
    """An argument the tool cannot use; the message is the tool error the caller sees."""


# -- arguments -------------------------------------------------------------------------------------------------
def check_limit(limit: Any) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise ToolInputError(f"limit must be a whole number from 1 to {MAX_LIMIT}")
    return limit


def check_cursor(cursor: Any) -> int:
    """A cursor is the `next_cursor` of an earlier result: the offset of the next item, as a string."""
    if cursor is None or cursor == "":
        return 0
    if not isinstance(cursor, str) or not cursor.isascii() or not cursor.isdigit() or int(cursor) > MAX_CURSOR:
        raise ToolInputError("cursor must be the next_cursor value of an earlier result (or left out for the first page)")
    return int(cursor)


def check_lang(lang: Any) -> str:
    if lang not in LANGS:
        raise ToolInputError(f"lang must be one of {', '.join(LANGS)}")
    return lang


def page(items: list[Any], limit: int, cursor: str | None) -> tuple[list[Any], dict[str, Any]]:
    """One page of `items` plus the paging fields every list result carries."""
    limit, start = check_limit(limit), check_cursor(cursor)
    chunk = items[start : start + limit]
    return chunk, paging(len(items), start, len(chunk))


def paging(total: int, start: int, count: int) -> dict[str, Any]:
    """The paging fields of a page of `count` items from `start` of `total`."""
    end = start + count
    return {"total": total, "offset": start, "next_cursor": str(end) if end < total else None}


def cut(text: str, size: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"


# -- the loaded knowledge --------------------------------------------------------------------------------------
@dataclass
class Knowledge:
    """Everything the tools answer from, built once when the server starts: from the records' API files and a
    loaded catalog, or from a knowledge bundle (generator.bundle), which passes its matcher ready-made."""

    api: ApiData
    catalog: Catalog
    repo_url: str | None = None
    matcher: Matcher | None = None  # patterns 0 .. record_patterns-1 are the records', the rest the catalog's
    record_patterns: int = 0
    site_index: Callable[[str], list[list[Any]]] | None = None  # "<file name>:<line>" -> raise sites (a bundle's)
    symbols: Callable[[], dict[str, Any]] | None = None  # the symbol indexes by project, for drift answers
    lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        if self.matcher is None:
            from ..match.engine import Matcher
            from ..match.index import patterns_from_index

            patterns = patterns_from_index(self.api.match)
            self.record_patterns = len(patterns)
            for slug, project in self.catalog.projects.items():
                patterns += [catalog_pattern(slug, entry.data) for entry in project.entries]
            self.matcher = Matcher(patterns, evidence_from=self.record_patterns)

    def owner(self, index: int) -> tuple[Any, str] | None:
        """The catalog's (project, entry id) behind the matcher's pattern `index`; None for a record's pattern. The
        entry itself is read when asked for (`project.entry(id)`): a big log's answers show a few of hundreds."""
        if index < self.record_patterns:
            return None
        pattern = self.matcher.patterns[index]
        return self.catalog.projects[pattern.repo], pattern.id  # a catalog pattern's repo is its project's slug

    @functools.cached_property
    def search_index(self) -> dict[str, list[tuple[str, dict[str, str]]]]:
        """Per language, each record's title, message and explanation, as search reads them."""
        index: dict[str, list[tuple[str, dict[str, str]]]] = {lang: [] for lang in LANGS}
        titles = {p["id"]: p.get("title", "") for p in self.api.match.get("patterns", []) if isinstance(p, dict)}
        for cid in sorted(self.api.documents):
            record = self.api.document(cid)["record"]
            error = record.get("error", {})
            index["en"].append((cid, {
                "title": titles.get(cid, ""),
                "message": error.get("message", ""),
                "explanation": record.get("explanation", ""),
            }))
            index["zh"].append((cid, {
                "title": error.get("message_zh", ""),
                "message": error.get("message", ""),  # people paste the English message whatever they read
                "explanation": record.get("explanation_zh", ""),
            }))
        return index

    @functools.cached_property
    def folded(self) -> dict[str, list[tuple[str, dict[str, str]]]]:
        """search_index, NFKC-normalised and case-folded."""
        return {
            lang: [(cid, {name: fold(text) for name, text in fields.items()}) for cid, fields in entries]
            for lang, entries in self.search_index.items()
        }

    def resolve(self, name: Any) -> str:
        """The canonical id of a record id or alias; ToolInputError with near names when there is none."""
        if isinstance(name, str) and "/" in name and name.split("/", 1)[0] in self.catalog.projects:
            project = self.catalog.projects[name.split("/", 1)[0]]
            if project.entry(name) is not None:
                raise ToolInputError(
                    f"{name!r} is a catalog entry, not a record: no record explains it yet. Its template, sites and "
                    "releases come with match_log, explain_site and diff_errors results"
                )
        if not isinstance(name, str) or not name or len(name) > 200 or not re.fullmatch(ID_PATTERN, name):
            raise ToolInputError(
                f"{str(name)[:80]!r} is not a record id: lowercase [a-z0-9-] segments joined by '/', such as "
                "'vllm/block-manager-out-of-memory'"
            )
        if name not in self.api.names:
            near = difflib.get_close_matches(name, sorted(self.api.names), n=3, cutoff=0.6)
            hint = f"; did you mean {', '.join(near)}?" if near else "; search finds records by words, match_log by error text"
            raise ToolInputError(f"no record is named {name!r}{hint}")
        return self.api.names[name]


def catalog_pattern(slug: str, entry: dict[str, Any]) -> Pattern:
    """A catalog entry as a matcher pattern; its literal and specificity come from the harvest when usable.

    The harvest has already analysed each pattern (generator.match.portable) to write `literal` and `specificity`;
    analysing again costs milliseconds a pattern (the backtracking checks), a minute for a large catalog at
    every start. So the matcher gets the harvest's figures, and `anchored` from the pattern's text (a leading
    `^` or a trailing unescaped `$`, the matcher's rule)."""
    literal, specificity, pattern = entry.get("literal"), entry.get("specificity"), entry["pattern"]
    derived: dict[str, Any] = {}
    if isinstance(literal, str) and len(literal) >= 4 and isinstance(specificity, int) and not pattern.startswith("(?i)"):
        anchored = pattern.startswith("^") or (pattern.endswith("$") and not pattern.endswith("\\$"))
        derived = {"literals": (literal,), "specificity": specificity, "anchored": anchored}
    exception = entry.get("exception") if isinstance(entry.get("exception"), str) else None
    title = f"{exception}: {entry['template']}" if exception else entry["template"]
    return _pattern_type()(entry["id"], entry["pattern"], entry["template"], cut(title, 300), "", slug, exception, None, **derived)


@functools.cache
def _pattern_type() -> type[Pattern]:
    """The engine's Pattern, imported when the first catalog pattern is made (once, not at each of 100,000)."""
    from ..match.engine import Pattern

    return Pattern


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()
