"""Records -> page Markdown, per language (pure functions; nothing here knows about mkdocs).

Record text is untrusted: it comes from strangers' pull requests. Every record field reaches the page as
escaped HTML inside raw HTML blocks of the generated Markdown, so neither Markdown nor any template engine ever
parses it. Only the section headings (our own fixed strings) are Markdown, which gives the table of contents.
Front-matter values are JSON strings (valid YAML) holding entity-escaped HTML, because the theme prints
`page.meta.title` without escaping.
"""

from __future__ import annotations

import datetime as dt
import functools
import posixpath
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import jinja2
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name

from . import chars
from .languages import LANGUAGES, MAX_HIGHLIGHT, language_of
from .model import Record

LANGS = ("en", "zh")
SEVERITIES = ("critical", "error", "warning", "info")
TEMPLATES = Path(__file__).parent / "templates"

# Control characters other than tab and newline have no business on a page; Python-Markdown also uses
# \x02/\x03 for its own placeholders, so a record must never be able to emit them.

LABELS: dict[str, dict[str, str]] = {
    "en": {
        "title": 'What causes "{message}" in {repo}?',
        "superseded": "This record is retired. Its successor:",
        "sec_error": "The error",
        "sec_meaning": "What it means",
        "sec_source": "Source",
        "sec_solutions": "Solutions",
        "sec_example_fix": "Example fix",
        "sec_handling": "Defensive patterns",
        "sec_prevention": "Prevention",
        "sec_when": "When it happens",
        "sec_dead_ends": "Don't try these",
        "sec_workarounds": "Try these",
        "sec_versions": "Affected versions",
        "sec_os": "Operating-system notes",
        "sec_docs": "Official documentation",
        "sec_related": "Related errors",
        "sec_provenance": "Provenance",
        "sec_links": "Data and feedback",
        "message": "Message template",
        "message_zh": "In Chinese",
        "exception_class": "Class",
        "type": "Type",
        "code": "Error code",
        "http_status": "HTTP status",
        "severity": "Severity",
        "project": "Project",
        "category": "Category",
        "tags": "Tags",
        "examples": "Seen in logs as",
        "explanation": "Explanation",
        "root_cause": "Root cause",
        "thrown_at": "Raised at",
        "view_on_github": "View on GitHub (pinned to {commit})",
        "before": "Before",
        "after": "After",
        "strategy": "Strategy",
        "validate_before": "Validate before calling",
        "type_guard": "Type guard",
        "try_catch": "Try / catch",
        "triggers": "Triggers",
        "common_situations": "Common situations",
        "fail_rate": "fails",
        "success_rate": "works",
        "fail_rate_label": "Fail rate {pct}",
        "success_rate_label": "Success rate {pct}",
        "why_fails": "Why it fails",
        "how": "How",
        "condition": "When",
        "sources": "Sources",
        "fix_success_rate": "Fixes work",
        "resolvable": "Resolvable",
        "version": "Version",
        "status": "Status",
        "introduced": "Introduced",
        "deprecated": "Deprecated",
        "removed": "Removed",
        "behavior_change": "Behaviour change",
        "docs_section": "Section",
        "leads_to": "Leads to",
        "preceded_by": "Preceded by",
        "confused_with": "Often confused with",
        "verification_tier": "Verification",
        "confidence": "Confidence",
        "evidence_count": "Evidence",
        "evidence_unit": "reports",
        "first_seen": "First seen",
        "last_confirmed": "Last confirmed",
        "last_updated": "Last updated",
        "analyzed_commit": "Analysed commit",
        "data_json": "Data as JSON",
        "edit": "Edit this record",
        "report": "Report a problem",
        "untranslated": "not yet translated",
        "entries": "{n} errors",
        "home": "Home",
        "by_project": "Errors by project",
        "by_category": "Errors by category",
        "by_tag": "Errors by tag",
        "by_severity": "Errors by severity",
        "in_project": "Errors in {name}",
        "in_category": "Errors in category {name}",
        "with_tag": "Errors tagged {name}",
        "with_severity": "Errors of severity {name}",
        "browse_intro": "Each entry shows the message, the project and the severity.",
        "report_title": "[{id}] ",
        "report_body": "Record: {id}\nPage: {page}\n\nWhat is wrong or missing?\n",
    },
    "zh": {
        "title": "在 {repo} 中，“{message}” 是什么原因造成的？",
        "superseded": "此条目已停用，请参阅替代条目：",
        "sec_error": "错误信息",
        "sec_meaning": "含义",
        "sec_source": "源代码",
        "sec_solutions": "解决方法",
        "sec_example_fix": "修复示例",
        "sec_handling": "防御性写法",
        "sec_prevention": "预防",
        "sec_when": "何时出现",
        "sec_dead_ends": "不要这样做",
        "sec_workarounds": "可以试试",
        "sec_versions": "受影响的版本",
        "sec_os": "操作系统说明",
        "sec_docs": "官方文档",
        "sec_related": "相关错误",
        "sec_provenance": "来源与可信度",
        "sec_links": "数据与反馈",
        "message": "消息模板",
        "message_zh": "中文",
        "exception_class": "异常类",
        "type": "类型",
        "code": "错误码",
        "http_status": "HTTP 状态码",
        "severity": "严重程度",
        "project": "项目",
        "category": "类别",
        "tags": "标签",
        "examples": "日志中的实例",
        "explanation": "解释",
        "root_cause": "根本原因",
        "thrown_at": "抛出位置",
        "view_on_github": "在 GitHub 上查看（固定于 {commit}）",
        "before": "修改前",
        "after": "修改后",
        "strategy": "策略",
        "validate_before": "调用前校验",
        "type_guard": "类型守卫",
        "try_catch": "try / catch",
        "triggers": "触发条件",
        "common_situations": "常见场景",
        "fail_rate": "失败",
        "success_rate": "有效",
        "fail_rate_label": "失败率 {pct}",
        "success_rate_label": "成功率 {pct}",
        "why_fails": "为什么无效",
        "how": "做法",
        "condition": "适用条件",
        "sources": "来源",
        "fix_success_rate": "修复成功率",
        "resolvable": "可解决性",
        "version": "版本",
        "status": "状态",
        "introduced": "引入于",
        "deprecated": "弃用于",
        "removed": "移除于",
        "behavior_change": "行为变化",
        "docs_section": "章节",
        "leads_to": "可能引发",
        "preceded_by": "通常先出现",
        "confused_with": "容易混淆",
        "verification_tier": "核实级别",
        "confidence": "置信度",
        "evidence_count": "证据",
        "evidence_unit": "份报告",
        "first_seen": "首次发现",
        "last_confirmed": "最近确认",
        "last_updated": "最近更新",
        "analyzed_commit": "分析所用提交",
        "data_json": "JSON 数据",
        "edit": "编辑此条目",
        "report": "报告问题",
        "untranslated": "尚未翻译",
        "entries": "{n} 个错误",
        "home": "首页",
        "by_project": "按项目浏览",
        "by_category": "按类别浏览",
        "by_tag": "按标签浏览",
        "by_severity": "按严重程度浏览",
        "in_project": "{name} 中的错误",
        "in_category": "类别 {name} 中的错误",
        "with_tag": "标签为 {name} 的错误",
        "with_severity": "严重程度为 {name} 的错误",
        "browse_intro": "每一项列出错误消息、所属项目和严重程度。",
        "report_title": "[{id}] ",
        "report_body": "Record: {id}\nPage: {page}\n\nWhat is wrong or missing?\n",
    },
}

VALUE_LABELS: dict[str, dict[str, str]] = {
    "en": {
        "critical": "critical", "error": "error", "warning": "warning", "info": "info",
        "exception": "exception", "error_code": "error code", "console": "console output", "http": "HTTP error",
        "validation": "validation error", "panic": "panic",
        "try-catch": "try / catch", "type-guard": "type guard", "validation_strategy": "validate inputs",
        "retry": "retry", "fallback": "fall back",
        "ai_generated": "AI-generated analysis", "community": "community contributed", "source_verified": "verified against the source",
        "reproduced": "reproduced", "maintainer_confirmed": "confirmed by maintainers",
        "fixable": "fixable", "partially-fixable": "partially fixable", "not-fixable": "not fixable",
        "active": "active", "fixed": "fixed", "changed": "changed", "unknown": "unknown",
    },
    "zh": {
        "critical": "致命", "error": "错误", "warning": "警告", "info": "提示",
        "exception": "异常", "error_code": "错误码", "console": "控制台输出", "http": "HTTP 错误",
        "validation": "校验错误", "panic": "panic",
        "try-catch": "try / catch", "type-guard": "类型守卫", "validation_strategy": "校验输入",
        "retry": "重试", "fallback": "降级回退",
        "ai_generated": "AI 生成的分析", "community": "社区贡献", "source_verified": "已对照源代码核实",
        "reproduced": "已复现", "maintainer_confirmed": "维护者已确认",
        "fixable": "可修复", "partially-fixable": "部分可修复", "not-fixable": "无法修复",
        "active": "仍存在", "fixed": "已修复", "changed": "已变化", "unknown": "未知",
    },
}


@dataclass(frozen=True)
class SiteLinks:
    """Where a record's source file can be edited and problems reported (from mkdocs.yml's repo_url/edit_uri)."""

    repo_url: str | None = None
    edit_uri: str | None = None

    def edit_url(self, record_id: str) -> str | None:
        if not self.repo_url or self.edit_uri is None:
            return None
        base = self.repo_url.rstrip("/") + "/" + self.edit_uri.strip("/")
        return f"{base}/data/errors/{record_id}.yaml"

    def report_url(self, record_id: str, page: str) -> str | None:
        if not self.repo_url:
            return None
        labels = LABELS["en"]
        query = urlencode({"title": labels["report_title"].format(id=record_id), "body": labels["report_body"].format(id=record_id, page=page)})
        return f"{self.repo_url.rstrip('/')}/issues/new?{query}"


@dataclass
class Dataset:
    """The records plus the lookups pages need: canonical ids for aliases, and groupings for browse pages."""

    records: list[Record]
    by_id: dict[str, Record] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_id = {r.id: r for r in self.records}
        for r in self.records:
            self.canonical[r.id] = r.id
        for r in self.records:
            for alias in r.aliases:
                self.canonical.setdefault(alias, r.id)

    def resolve(self, name: str) -> Record | None:
        target = self.canonical.get(name)
        return self.by_id.get(target) if target else None


# ---------------------------------------------------------------- paths and urls


def error_page_path(record_id: str) -> str:
    """The generated page's source path inside a language's docs folder (always an index page: no mkdocs
    special-casing of names like `index` or `readme`)."""
    return f"errors/{record_id}/index.md"


def error_page_url(record_id: str) -> str:
    """The page's URL relative to the language root."""
    return f"errors/{record_id}/"


def api_url(record_id: str) -> str:
    """The record's JSON file relative to the site root (the API is shared by both languages)."""
    return f"api/errors/{record_id}.json"


def _path_segment(text: str) -> str:
    """A repository name as a safe path segment: letters, digits and '-' stay; any other character, '_' (the
    escape character itself) included, becomes `_<hex>_`. No two names share a segment ('llama.cpp' is
    'llama_2e_cpp', 'llama-2e-cpp' stays as it is), and '.' and '..' never reach a path."""
    return re.sub(r"[^A-Za-z0-9-]", lambda m: f"_{ord(m.group()):x}_", text)


def project_page(repo: str) -> str:
    owner, name = repo.split("/", 1)
    return f"browse/project/{_path_segment(owner)}/{_path_segment(name)}/index.md"


def category_page(category: str) -> str:
    return f"browse/category/{category}/index.md"


def tag_page(tag: str) -> str:
    return f"browse/tag/{tag}/index.md"


def severity_page(severity: str) -> str:
    return f"browse/severity/{severity}/index.md"


def page_url_of(src_path: str) -> str:
    """URL (relative to the language root) of a generated `.../index.md` or `name.md` source path."""
    if src_path.endswith("/index.md"):
        return src_path[: -len("index.md")]
    if src_path == "index.md":
        return ""
    return src_path[: -len(".md")] + "/"


def relative(from_url: str, to_url: str) -> str:
    """Relative link between two site-root-relative URLs (directories end with '/')."""
    start = posixpath.dirname(from_url.rstrip("/") + "/x") if from_url else "."
    target = to_url.rstrip("/") or "."
    rel = posixpath.relpath(target, start or ".")
    if to_url.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return rel


def lang_root(lang: str) -> str:
    """A language's root relative to the site root."""
    return "" if lang == "en" else f"{lang}/"


def safe_url(url: str | None) -> str | None:
    """Only http(s) URLs become links."""
    if url and re.match(r"^https?://[^\s<>\"'`]+$", url):
        return url
    return None


# ---------------------------------------------------------------- text helpers


def clean(text: str) -> str:
    """Record text as a page may carry it: any unsafe character (validation refuses them) becomes U+FFFD."""
    return chars.scrub(text)


def percent(rate: float) -> str:
    return f"{round(rate * 100):d}%"


@dataclass
class Text:
    """A piece of record text in the page's language, or English with a not-yet-translated mark."""

    text: str
    fallback: bool = False


def pick(en: Any, zh: Any, lang: str, index: int | str | None = None) -> Text | None:
    if en is None:
        return None
    if index is not None:
        en = en[index]
        # A translation list of the wrong length (a TRN002 finding) shows the English, marked, not a crash.
        try:
            zh = zh[index] if zh is not None else None
        except (IndexError, KeyError):
            zh = None
    if lang == "zh":
        if zh is not None:
            return Text(clean(zh))
        return Text(clean(en), fallback=True)
    return Text(clean(en))


@functools.lru_cache(maxsize=64)
def _lexer(language: str):
    return get_lexer_by_name(LANGUAGES[language])


@functools.lru_cache(maxsize=20_000)
def _highlight(code: str, language: str | None, filename: str | None, start: int = 0, marked: int = 0) -> str:
    """Highlighted HTML; with `start`, a line-number table starting there and line `marked` highlighted.

    Only allow-listed lexers run (`generator.languages`), and never on more than MAX_HIGHLIGHT characters:
    past that the code is plain text. Cached because each page is rendered once per language."""
    if start:
        formatter = HtmlFormatter(cssclass="highlight", wrapcode=True, linenos="table", linenostart=start, hl_lines=[marked])
    else:
        formatter = HtmlFormatter(cssclass="highlight", wrapcode=True)
    name = language_of(language, filename) if len(code) <= MAX_HIGHLIGHT else "text"
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


# ---------------------------------------------------------------- the error page


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


def page_title(record: Record, lang: str) -> str:
    # The message as it appears in logs (what people paste), on both languages' pages.
    message = " ".join(clean(record.error.message).split())
    return LABELS[lang]["title"].format(message=message, repo=record.repo)


def _description(record: Record, lang: str) -> str:
    text = pick(record.explanation, record.explanation_zh, lang)
    assert text is not None
    words = " ".join(text.text.split())
    return words if len(words) <= 200 else words[:199] + "…"


def error_page_context(record: Record, lang: str, data: Dataset, links: SiteLinks) -> dict[str, Any]:
    """Everything the error page template needs, already in the page's language."""
    url = lang_root(lang) + error_page_url(record.id)
    here = url

    def link(to: str) -> str:
        return relative(here, to)

    def related(ids: Iterable[str]) -> list[dict[str, str]]:
        out = []
        for name in ids:
            target = data.resolve(name)
            if target is None:  # checks guarantee references resolve; never emit a broken link
                continue
            out.append({
                "href": link(lang_root(lang) + error_page_url(target.id)),
                "message": clean(target.error.message),
                "repo": target.repo,
                "id": target.id,
            })
        return out

    s = record.source
    source = None
    if s is not None:
        source = {
            "where": f"{s.path}:{s.line}",
            "snippet": snippet_block(record),
            "permalink": safe_url(record.permalink()),
            "commit_short": s.commit[:10],
            "start": s.start_line,
            "end": s.end_line,
            "line": s.line,
        }

    fix = record.example_fix
    example_fix = None
    if fix is not None:
        example_fix = {
            "before": code_block(fix.before, fix.language or "python"),
            "after": code_block(fix.after, fix.language or "python"),
            "note": pick(fix.note, fix.note_zh, lang),
        }

    h = record.handling
    handling = None
    if h is not None:
        lang_code = (s.language if s and s.language else None) or "python"
        handling = {
            "strategy": VALUE_LABELS[lang]["validation_strategy" if h.strategy == "validation" else h.strategy],
            "blocks": [
                (key, code_block(code, lang_code))
                for key, code in (("validate_before", h.validate_before), ("type_guard", h.type_guard), ("try_catch", h.try_catch))
                if code
            ],
        }

    def rate_items(items, rate_attr, text_attr):
        out = []
        for d in items:
            out.append({
                "action": pick(d.action, d.action_zh, lang),
                "text": pick(getattr(d, text_attr), getattr(d, f"{text_attr}_zh"), lang),
                "condition": pick(d.condition, d.condition_zh, lang),
                "rate": getattr(d, rate_attr),
                "sources": [u for u in (safe_url(x) for x in d.sources) if u],
            })
        return out

    versions = [
        {
            "version": clean(v.version),
            "status": VALUE_LABELS[lang][v.status],
            "introduced": clean(v.introduced) if v.introduced else "",
            "deprecated": clean(v.deprecated) if v.deprecated else "",
            "removed": clean(v.removed) if v.removed else "",
            "behavior_change": pick(v.behavior_change, v.behavior_change_zh, lang),
        }
        for v in record.versions
    ]

    os_notes = [(name, pick(record.os_specific, record.os_specific_zh, lang, name)) for name in sorted(record.os_specific)]

    docs = None
    if record.official_docs is not None and safe_url(record.official_docs.url):
        docs = {"url": record.official_docs.url, "section": pick(record.official_docs.section, record.official_docs.section_zh, lang)}

    p = record.provenance
    successor = data.resolve(record.superseded_by) if record.superseded_by else None

    return {
        "L": LABELS[lang],
        "V": VALUE_LABELS[lang],
        "lang": lang,
        "id": record.id,
        "title": page_title(record, lang),
        "description": _description(record, lang),
        "successor": None if successor is None else {
            "href": link(lang_root(lang) + error_page_url(successor.id)),
            "message": clean(successor.error.message),
            "id": successor.id,
        },
        "error": {
            "message": clean(record.error.message),
            "message_zh": clean(record.error.message_zh) if lang == "zh" and record.error.message_zh else None,
            "exception_class": record.error.exception_class,
            "type": VALUE_LABELS[lang][record.error.type],
            "code": clean(record.error.code) if record.error.code else None,
            "http_status": record.error.http_status,
            "severity": record.error.severity,
            "examples": [clean(e) for e in record.error.examples],
        },
        "project": {"name": record.repo, "href": link(lang_root(lang) + page_url_of(project_page(record.repo)))},
        "category": {"name": record.category, "href": link(lang_root(lang) + page_url_of(category_page(record.category)))},
        "tags": [{"name": t, "href": link(lang_root(lang) + page_url_of(tag_page(t)))} for t in record.tags],
        "severity_href": link(lang_root(lang) + page_url_of(severity_page(record.error.severity))),
        "explanation": pick(record.explanation, record.explanation_zh, lang),
        "root_cause": pick(record.root_cause, record.root_cause_zh, lang),
        "source": source,
        "solutions": [pick(record.solutions, record.solutions_zh, lang, i) for i in range(len(record.solutions))],
        "fix_success_rate": record.fix_success_rate,
        "resolvable": VALUE_LABELS[lang][record.resolvable] if record.resolvable else None,
        "example_fix": example_fix,
        "handling": handling,
        "prevention": [pick(record.prevention, record.prevention_zh, lang, i) for i in range(len(record.prevention))],
        "triggers": pick(record.triggers, record.triggers_zh, lang),
        "common_situations": pick(record.common_situations, record.common_situations_zh, lang),
        "dead_ends": rate_items(record.dead_ends, "fail_rate", "why_fails"),
        "workarounds": rate_items(record.workarounds, "success_rate", "how"),
        "versions": versions,
        "os_notes": os_notes,
        "docs": docs,
        "related": [
            (key, items)
            for key, items in (
                ("leads_to", related(record.related.leads_to)),
                ("preceded_by", related(record.related.preceded_by)),
                ("confused_with", related(record.related.confused_with)),
            )
            if items
        ],
        "provenance": {
            "tier": p.verification_tier,
            "tier_label": VALUE_LABELS[lang][p.verification_tier],
            "confidence": p.confidence,
            "evidence_count": p.evidence_count,
            "first_seen": p.first_seen,
            "last_confirmed": p.last_confirmed,
            "last_updated": p.last_updated,
            "analyzed_commit": p.analyzed_commit,
            "analyzed_commit_short": p.analyzed_commit[:10] if p.analyzed_commit else None,
            "analyzed_commit_url": f"https://github.com/{record.repo}/commit/{p.analyzed_commit}" if p.analyzed_commit else None,
        },
        "links": {
            "json": link(api_url(record.id)),
            "edit": safe_url(links.edit_url(record.id)),
            "report": safe_url(links.report_url(record.id, "/" + url)),
        },
    }


def render_error_page(record: Record, lang: str, data: Dataset, links: SiteLinks) -> str:
    """The Markdown source of one error page in one language."""
    return env().get_template("error_page.md.j2").render(error_page_context(record, lang, data, links))


# ---------------------------------------------------------------- browse pages


def _entry(record: Record, here: str, lang: str) -> dict[str, str]:
    return {
        "href": relative(here, lang_root(lang) + error_page_url(record.id)),
        "message": clean(record.error.message),
        "message_zh": clean(record.error.message_zh) if lang == "zh" and record.error.message_zh else None,
        "repo": record.repo,
        "severity": record.error.severity,
        "id": record.id,
    }


def _sorted(records: Iterable[Record]) -> list[Record]:
    return sorted(records, key=lambda r: (SEVERITIES.index(r.error.severity), r.id))


class PageCollision(ValueError):
    """Two generated pages would have one path."""


def render_browse_pages(records: list[Record], lang: str) -> dict[str, str]:
    """Source path -> Markdown for the index pages (by project, category, tag, severity) and each group page."""
    L = LABELS[lang]
    groups: dict[str, dict[str, list[Record]]] = {"project": defaultdict(list), "category": defaultdict(list), "tag": defaultdict(list), "severity": defaultdict(list)}
    for r in records:
        groups["project"][r.repo].append(r)
        groups["category"][r.category].append(r)
        groups["severity"][r.error.severity].append(r)
        for t in r.tags:
            groups["tag"][t].append(r)

    kinds = {
        "project": ("browse/projects.md", L["by_project"], project_page, L["in_project"]),
        "category": ("browse/categories.md", L["by_category"], category_page, L["in_category"]),
        "tag": ("browse/tags.md", L["by_tag"], tag_page, L["with_tag"]),
        "severity": ("browse/severities.md", L["by_severity"], severity_page, L["with_severity"]),
    }
    pages: dict[str, str] = {}
    index_tpl = env().get_template("browse_index.md.j2")
    list_tpl = env().get_template("browse_list.md.j2")
    for kind, (index_path, index_title, group_path, group_title) in kinds.items():
        names = list(groups[kind])
        names = [s for s in SEVERITIES if s in groups[kind]] if kind == "severity" else sorted(names, key=str.lower)
        index_url = lang_root(lang) + page_url_of(index_path)
        items = []
        for name in names:
            path = group_path(name)
            label = VALUE_LABELS[lang][name] if kind == "severity" else name
            items.append({"name": label, "href": relative(index_url, lang_root(lang) + page_url_of(path)), "count": len(groups[kind][name]), "severity": name if kind == "severity" else None})
            here = lang_root(lang) + page_url_of(path)
            if path in pages:
                raise PageCollision(f"{kind} {name!r} and another {kind} share the page {path}")
            pages[path] = list_tpl.render(
                L=L, V=VALUE_LABELS[lang], title=group_title.format(name=label),
                back={"href": relative(here, index_url), "title": index_title},
                entries=[_entry(r, here, lang) for r in _sorted(groups[kind][name])],
            )
        pages[index_path] = index_tpl.render(L=L, title=index_title, items=items, kind=kind)
    return pages


def dataset_counts(records: list[Record]) -> dict[str, Any]:
    """Counts for the home pages (handed to mkdocs-macros as `errdex` in config.extra)."""
    severity = Counter(r.error.severity for r in records)
    return {
        "errors": len(records),
        "projects": len({r.repo for r in records}),
        "categories": len({r.category for r in records}),
        "tags": len({t for r in records for t in r.tags}),
        "with_source": sum(1 for r in records if r.source is not None),
        "translated": sum(1 for r in records if r.explanation_zh is not None),
        "severity": {s: severity.get(s, 0) for s in SEVERITIES},
    }


def source_date_epoch(records: list[Record]) -> int:
    """A build timestamp taken from the data (the newest last_updated), never from the clock."""
    dates = [r.provenance.last_updated for r in records] or ["2026-01-01"]
    day = dt.date.fromisoformat(max(dates))
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp())


def render_site_pages(records: list[Record], lang: str, links: SiteLinks) -> dict[str, str]:
    """All generated pages of one language: source path -> Markdown."""
    data = Dataset(records)
    pages = {error_page_path(r.id): render_error_page(r, lang, data, links) for r in records}
    browse = render_browse_pages(records, lang)
    shared = sorted(pages.keys() & browse.keys())
    if shared:
        raise PageCollision(f"an error page and a browse page share the path {shared[0]}")
    pages.update(browse)
    return pages


def alias_redirects(records: list[Record]) -> dict[str, str]:
    """URL of each alias (relative to a language root) -> URL of its record, so legacy ids keep resolving."""
    out = {}
    ids = {r.id for r in records}
    for r in records:
        for alias in r.aliases:
            if alias not in ids:
                out[error_page_url(alias)] = error_page_url(r.id)
    return out


def quote_path(path: str) -> str:
    return quote(path, safe="/")
