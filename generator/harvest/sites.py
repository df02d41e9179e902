"""One error site: where a message is raised or logged, and its template. Extractors return these."""

from __future__ import annotations

from dataclasses import asdict, dataclass

KINDS = ("raise", "log", "warn", "assert", "http", "panic")
MAX_STATEMENT_LINES = 4
MAX_STATEMENT_CHARS = 400
# Of each line of a statement only this much is read: a site on a line of megabytes costs no more than any other.
MAX_LINE_READ = 4096
MAX_NAME = 200  # characters of a function or exception name (the catalog's schema takes no longer one)
ANONYMOUS = "<anonymous>"


@dataclass(frozen=True)
class Site:
    """A message template (`{}` for each value) at one line of one file.

    Path-independent, so extraction results can be cached by file content; the catalog adds the path."""

    template: str
    kind: str  # one of KINDS
    line: int
    statement: str  # the statement's text, a few lines at most
    function: str  # enclosing function, or "<module>"
    exception: str | None = None  # exception class (raise), warning category (warn)
    level: str | None = None  # log level (log)

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "Site":
        return cls(**data)


def statement_at(lines: list[str], first: int, last: int) -> str:
    """The clipped statement on lines `first`..`last` (0-based, inclusive): only the lines it shows are sliced."""
    return clip_statement(lines[first : min(last, first + MAX_STATEMENT_LINES - 1) + 1])


def clip_statement(lines: list[str]) -> str:
    """A statement's text, cut to a few lines and a few hundred characters, common indentation removed."""
    lines = [line[:MAX_LINE_READ] for line in lines[:MAX_STATEMENT_LINES]]
    indent = min((len(l) - len(l.lstrip()) for l in lines if l.strip()), default=0)
    text = "\n".join(l[indent:].rstrip() for l in lines)
    return text if len(text) <= MAX_STATEMENT_CHARS else text[: MAX_STATEMENT_CHARS - 1] + "…"


def bounded_name(name: str | None) -> str | None:
    """A function or exception name, or None when it is longer than any real one (it would repeat at every site)."""
    return name if name is None or len(name) <= MAX_NAME else None
