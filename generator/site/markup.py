"""Page markup helpers: record text made safe for a page, highlighted code, the template environment.

Record text is untrusted: it comes from strangers' pull requests. Every record field reaches the page as
escaped HTML inside raw HTML blocks of the generated Markdown, so neither Markdown nor any template engine ever
parses it. Front-matter values are YAML strings in escaped ASCII holding entity-escaped HTML, because the theme
prints `page.meta.title` without escaping.
"""

from __future__ import annotations

import difflib
import functools
import re
from pathlib import Path
from dataclasses import dataclass
from typing import Any

import jinja2
from pydantic import BaseModel
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from .. import chars
from ..records.bilingual import in_language
from ..languages import LANGUAGES, highlightable, language_of
from ..records.model import Record

TEMPLATES = Path(__file__).parent / "templates"


def safe_url(url: str | None) -> str | None:
    """Only http(s) URLs become links."""
    if url and re.match(r"^https?://[^\s<>\"'`]+$", url):
        return url
    return None


# Control characters other than tab and newline have no business on a page; Python-Markdown also uses
# \x02/\x03 for its own placeholders, so a record must never be able to emit them.
def clean(text: str) -> str:
    """Record text as a page may carry it: any unsafe character (validation refuses them) becomes U+FFFD."""
    return chars.scrub(text)


def percent(rate: float) -> str:
    return f"{round(rate * 100):d}%"


@functools.lru_cache(maxsize=64)
def _lexer(language: str):
    return get_lexer_by_name(LANGUAGES[language])


@functools.lru_cache(maxsize=20_000)
def _highlight(code: str, language: str | None, filename: str | None, start: int = 0, marked: int = 0) -> str:
    """Highlighted HTML; with `start`, a line-number table starting there and line `marked` highlighted.

    Only allow-listed lexers run (`generator.languages`), and never on more than MAX_HIGHLIGHT characters or a
    line of more than MAX_HIGHLIGHT_LINE: past that the code is plain text. Cached because each page is rendered
    once per language."""
    if start:
        formatter = HtmlFormatter(cssclass="highlight", wrapcode=True, linenos="table", linenostart=start, hl_lines=[marked])
    else:
        formatter = HtmlFormatter(cssclass="highlight", wrapcode=True)
    name = language_of(language, filename) if highlightable(code) else "text"
    return highlight(code, _lexer(name), formatter)


def code_block(code: str, language: str | None = "python") -> Markup:
    """Escaped, highlighted code (Pygments escapes every token)."""
    return Markup(_highlight(clean(code), language, None))


def snippet_block(record: Record) -> Markup:
    """The source snippet with its real line numbers and the raise line highlighted."""
    s = record.source
    assert s is not None
    text = clean(s.snippet)
    if text.endswith("\n"):
        text = text[:-1]
    return Markup(_highlight(text + "\n", s.language, s.path, s.start_line, s.line - s.start_line + 1))


def _one_line(value: Any) -> Any:
    """Every expression's output, escaped, with its line breaks as character references.

    Record text can then never begin a line of the generated Markdown: whatever Markdown would make of a line
    starting with `#`, a fence or four spaces, no such line exists. Browsers read `&#10;` as a newline, so <pre>
    blocks and `white-space: pre-line` text look the same.
    """
    if value is None or isinstance(value, (bool, int, float, jinja2.Undefined)):
        return value
    text = value if isinstance(value, Markup) else escape(value)
    return Markup(str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\n", "&#10;"))


# Record text stays text; three shapes of it are shown as code, built here from escaped pieces (no record text is
# ever read as markup): a `backtick span`; a command-line flag (--max-model-len, -ngl, --flag=value), kept on one
# line; and a command (a backtick span, or a whole line, that starts with a program people run), shown as a code
# block, which the theme gives a copy button; a command in backticks shorter than COMMAND_INLINE characters stays
# inline code, so a sentence is not broken for `hf auth login`.
_TICKS = re.compile(r"`([^`\n]+)`")
_FLAG = re.compile(r"(?<![\w/.-])(--?[A-Za-z][A-Za-z0-9_.-]*(?:=[^\s,;)`'\"，。；）]+)?)")
COMMAND_INLINE = 24
_COMMAND = re.compile(
    r"(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:pip3?|python3?|uv|conda|vllm|sglang|ollama|llama-server|llama-cli|"
    r"text-generation-launcher|docker|nvidia-smi|huggingface-cli|hf|export|git|cmake|apt-get|apt|torchrun|"
    r"accelerate|trtllm-build|trtllm-serve|CMAKE_ARGS=\S+\s+pip)\s+\S.*"
)


def _flags(text: str) -> Markup:
    out, last = [], 0
    for m in _FLAG.finditer(text):
        out.append(escape(text[last:m.start()]))
        out.append(Markup('<code class="errdex-flag">{}</code>').format(m.group(1)))
        last = m.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def _is_command(span: str) -> bool:
    return len(span.strip()) >= COMMAND_INLINE and _COMMAND.fullmatch(span.strip()) is not None


def _command(body: str) -> Markup:
    return Markup('<pre class="errdex-command"><code>{}</code></pre>').format(body.strip())


def rich(text: str) -> Markup:
    """Record text with its code, flags and commands marked up (see above); everything else escaped."""
    out = []
    for line in text.split("\n"):
        if out:
            out.append(Markup("\n"))
        if _COMMAND.fullmatch(line.strip()) and "`" not in line:
            out.append(_command(line))
            continue
        last = 0
        for m in _TICKS.finditer(line):
            out.append(_flags(line[last:m.start()]))
            body = m.group(1)
            out.append(_command(body) if _is_command(body) else Markup("<code>{}</code>").format(body))
            last = m.end()
        out.append(_flags(line[last:]))
    return Markup("").join(out)


def has_block(text: str) -> bool:
    """Whether `rich(text)` holds a code block (its container must then be a block element, not <p> or <span>)."""
    return any(_COMMAND.fullmatch(line.strip()) and "`" not in line for line in text.split("\n")) or any(
        _is_command(m.group(1)) for m in _TICKS.finditer(text))


_WORDS = re.compile(r"\s+|[\w.-]+|[^\w\s]")  # the units of change within a line


def _marked(tokens: list[str], changed: set[int]) -> Markup:
    """The tokens, with each run of changed ones (white space between two changed tokens included) in one <mark>."""
    flags = [i in changed and bool(t.strip()) for i, t in enumerate(tokens)]
    for i, t in enumerate(tokens):
        if not t.strip() and 0 < i < len(tokens) - 1 and flags[i - 1] and flags[i + 1]:
            flags[i] = True
    out, run = [], []
    for t, flag in zip(tokens, flags):
        if flag:
            run.append(t)
            continue
        if run:
            out.append(Markup("<mark>{}</mark>").format("".join(run)))
            run = []
        out.append(escape(t))
    if run:
        out.append(Markup("<mark>{}</mark>").format("".join(run)))
    return Markup("").join(out)


def _line(kind: str, sign: str, body: Markup) -> Markup:
    return Markup('<span class="errdex-diff__{}">{} {}</span>').format(kind, sign, body)


def diff_block(before: str, after: str) -> Markup:
    """An example fix as one unified diff: lines removed (-), added (+) and kept, with the words that changed in
    a changed line marked. Built from escaped pieces; no highlighting, so that the marks are the only colour."""
    old, new = clean(before).split("\n"), clean(after).split("\n")
    rows: list[Markup] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            rows += [_line("same", " ", escape(line)) for line in old[i1:i2]]
            continue
        dels, adds = old[i1:i2], new[j1:j2]
        for k in range(max(len(dels), len(adds))):
            a = _WORDS.findall(dels[k]) if k < len(dels) else None
            b = _WORDS.findall(adds[k]) if k < len(adds) else None
            gone, came = set(range(len(a or []))), set(range(len(b or [])))
            if a is not None and b is not None:
                for tag, x1, x2, y1, y2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
                    if tag == "equal":
                        gone -= set(range(x1, x2))
                        came -= set(range(y1, y2))
            if a is not None:
                rows.append(_line("del", "-", _marked(a, gone)))
            if b is not None:
                rows.append(_line("add", "+", _marked(b, came)))
    return Markup('<pre class="errdex-diff"><code>{}</code></pre>').format(Markup("\n").join(rows))


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        finalize=_one_line,
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["fm"] = front_matter_value
    env.filters["pct"] = percent
    env.filters["rich"] = rich
    env.tests["block"] = has_block
    return env


_ENV: jinja2.Environment | None = None


def env() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _env()
    return _ENV


def front_matter_value(text: str) -> Markup:
    """A front-matter value: entity-escaped HTML (the theme prints it raw) as a YAML double-quoted scalar.

    Written in printable ASCII only, every other character as a `\\uXXXX` or `\\UXXXXXXXX` escape: whatever the
    text holds (a control, a non-character, a code point YAML readers refuse), the page's metadata still parses,
    so it can never fall through to be rendered as Markdown. `tests/test_render.py` round-trips every code point."""
    return Markup(yaml_quoted(str(escape(clean(text).replace("\n", " ")))))


def yaml_quoted(text: str) -> str:
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif 0x20 <= code < 0x7F:
            out.append(ch)
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


# ---------------------------------------------------------------- record text in a page's language


@dataclass
class Text:
    """A piece of record text in the page's language, or English with a not-yet-translated mark."""

    text: str
    fallback: bool = False


def pick(obj: BaseModel, name: str, lang: str, index: int | str | None = None) -> Text | None:
    """Field `name` of `obj` (or its item `index`) in the page's language, made safe for the page."""
    chosen = in_language(obj, name, lang, index)
    if chosen is None:
        return None
    value, fallback = chosen
    return Text(clean(value), fallback)


def pick_all(obj: BaseModel, name: str, lang: str) -> list[Text | None]:
    """Every item of the list field `name` of `obj`, in the page's language."""
    return [pick(obj, name, lang, i) for i in range(len(getattr(obj, name)))]
