"""What each tool of `errdex mcp` does: plain functions from the loaded data and the caller's arguments to small,
JSON-ready results. Nothing here knows about the MCP SDK (server.py wires these up).

Results are sized for an agent's context: lists come a page at a time (`limit`, then the `next_cursor` a result
gives, passed back as `cursor`), and long texts are cut. Bad arguments raise `ToolInputError`, whose message
says what was wrong and what is accepted; the server turns it into a tool error.
"""

from __future__ import annotations

import difflib
import io
import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from ..match import Matcher, Pattern, patterns_from_index, result_json
from ..model import ID_PATTERN
from .api import ApiData
from .catalog import Catalog, CatalogQueryError, check_version, entry_summary
from .catalog import diff_errors as catalog_diff
from .catalog import explain_site as catalog_explain

MAX_TEXT_BYTES = 1 << 20  # match_log reads at most this much text (a long traceback is ~50 KB)
MAX_QUERY = 500
MAX_FIX = 2000
MAX_URL = 2000
MAX_ISSUE_URL = 8000  # GitHub and browsers refuse much longer links
DEFAULT_LIMIT = 5
MAX_LIMIT = 50
MAX_CURSOR = 1_000_000
SNIPPET = 240  # characters of an explanation shown in a search result
LANGS = ("en", "zh")
OUTCOMES = ("worked", "partly_worked", "did_not_work")
_ID = re.compile(ID_PATTERN)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+(?:[._-][^\W_]+)*")


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
    end = start + len(chunk)
    return chunk, {"total": len(items), "offset": start, "next_cursor": str(end) if end < len(items) else None}


def _cut(text: str, size: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= size else text[: size - 1] + "…"


# -- the loaded knowledge --------------------------------------------------------------------------------------
@dataclass
class Knowledge:
    """Everything the tools answer from, built once when the server starts."""

    api: ApiData
    catalog: Catalog
    repo_url: str | None = None
    matcher: Matcher = field(init=False)
    catalog_patterns: dict[int, tuple[str, Any]] = field(init=False)  # id(Pattern) -> (project slug, Entry)
    search_index: dict[str, list[tuple[str, dict[str, str]]]] = field(init=False)
    folded: dict[str, list[tuple[str, dict[str, str]]]] = field(init=False)  # the same, NFKC and case-folded
    lock: threading.Lock = field(init=False, default_factory=threading.Lock)

    def __post_init__(self) -> None:
        patterns = patterns_from_index(self.api.match)
        self.catalog_patterns = {}
        for slug, project in self.catalog.projects.items():
            for entry in project.entries:
                pattern = catalog_pattern(slug, entry.data)
                self.catalog_patterns[id(pattern)] = (slug, entry)
                patterns.append(pattern)
        self.matcher = Matcher(patterns)
        self.search_index = {lang: [] for lang in LANGS}
        titles = {p["id"]: p.get("title", "") for p in self.api.match.get("patterns", []) if isinstance(p, dict)}
        for cid in sorted(self.api.documents):
            record = self.api.document(cid)["record"]
            error = record.get("error", {})
            self.search_index["en"].append((cid, {
                "title": titles.get(cid, ""),
                "message": error.get("message", ""),
                "explanation": record.get("explanation", ""),
            }))
            self.search_index["zh"].append((cid, {
                "title": error.get("message_zh", ""),
                "message": error.get("message", ""),  # people paste the English message whatever they read
                "explanation": record.get("explanation_zh", ""),
            }))
        self.folded = {
            lang: [(cid, {name: _fold(text) for name, text in fields.items()}) for cid, fields in entries]
            for lang, entries in self.search_index.items()
        }

    def resolve(self, name: Any) -> str:
        """The canonical id of a record id or alias; ToolInputError with near names when there is none."""
        if not isinstance(name, str) or not name or len(name) > 200 or not _ID.fullmatch(name):
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
    """A catalog entry as a matcher pattern; its literal and specificity come from the harvest when usable."""
    literal, specificity = entry.get("literal"), entry.get("specificity")
    derived: dict[str, Any] = {}
    if isinstance(literal, str) and len(literal) >= 4 and isinstance(specificity, int) and not entry["pattern"].startswith("(?i)"):
        derived = {"literals": (literal,), "specificity": specificity}
    exception = entry.get("exception") if isinstance(entry.get("exception"), str) else None
    title = f"{exception}: {entry['template']}" if exception else entry["template"]
    return Pattern(entry["id"], entry["pattern"], entry["template"], _cut(title, 300), "", slug, exception, None, **derived)


# -- tools -----------------------------------------------------------------------------------------------------
def match_log(k: Knowledge, text: Any, versions: Any = None, limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> dict[str, Any]:
    """The records and catalog entries found in `text`, best first (generator.match ranks them)."""
    if not isinstance(text, str) or not text.strip():
        raise ToolInputError("text must be the log or traceback to match, as a non-empty string")
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_TEXT_BYTES:
        raise ToolInputError(
            f"text is {len(data):,} bytes; match_log reads at most {MAX_TEXT_BYTES:,} (1 MiB). Send the traceback "
            "and the lines around the error, not the whole log (or run `errdex match FILE` on the whole log)"
        )
    wanted = check_versions(k, versions)
    check_limit(limit), check_cursor(cursor)
    with k.lock:  # the SDK runs tools in worker threads; the matcher keeps per-scan counters
        results = k.matcher.rank(k.matcher.scan(io.BytesIO(data)))
        lines, size = k.matcher.lines_read, k.matcher.bytes_read
    items: list[dict[str, Any]] = []
    by_line: dict[int, list[dict[str, Any]]] = {}  # record results per line, to attach catalog entries to
    entries = []
    for rank, r in enumerate(results, 1):
        item = result_json(rank, r)
        catalog = k.catalog_patterns.get(id(r.pattern))
        if catalog is None:
            item["type"] = "record"
            item.update(_record_extras(k, r.pattern.id))
            by_line.setdefault(item["line"], []).append(item)
            items.append(item)
        else:
            entries.append((item, catalog))
    for item, (slug, entry) in entries:
        project = k.catalog.projects[slug]
        at, score, why = _version_check(project, entry, wanted.get(slug))
        summary = entry_summary(project, entry, at if at is not None and entry.present(at) else None)
        same = [rec for rec in by_line.get(item["line"], []) if _overlap(rec, item)]
        if same:  # the record explains this very text: the entry adds where and in which releases it is raised
            for rec in same:
                if "catalog" not in rec:  # one release check per record, from its first entry
                    rec["score"] += score
                    rec["why"] += why
                rec.setdefault("catalog", []).append(summary)
            continue
        summary.pop("id"), summary.pop("template")
        item.pop("url", None)
        item.update(type="catalog", catalog=summary, score=item["score"] + score, why=item["why"] + why)
        items.append(item)
    items.sort(key=lambda i: (-i["score"], i["line"], i["id"]))
    first_on_line: dict[int, int] = {}
    for rank, item in enumerate(items, 1):  # ranks, and the matcher's same-line note, for the final order
        item["rank"] = rank
        item["why"] = [w for w in item["why"] if not w.startswith("on the same line as #")]
        if item["line"] in first_on_line:
            item["why"].append(f"on the same line as #{first_on_line[item['line']]}, which ranks higher")
        else:
            first_on_line[item["line"]] = rank
    chunk, paging = page(items, limit, cursor)
    return {
        "lines": lines,
        "bytes": size,
        "found": len(items),
        "results": chunk,
        **paging,
        "dataset_version": k.api.dataset_version,
    }


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two results on one line matched overlapping text (by column: a long line's excerpts differ)."""
    a0, b0 = a["column"], b["column"]
    return a0 < b0 + (b["span"][1] - b["span"][0]) and b0 < a0 + (a["span"][1] - a["span"][0])


def _version_check(project: Any, entry: Any, version: str | None) -> tuple[int | None, int, list[str]]:
    """(release index, score change, reasons) for a catalog entry when the log's release of its project is known:
    +10 when that release has the message, -30 when it does not."""
    if version is None:
        return None, 0, []
    try:
        at = project.release_index(version)
    except CatalogQueryError as exc:
        return None, 0, [f"release not checked: {exc}"]
    if entry.present(at):
        return at, 10, [f"+10: {project.slug} {project.releases[at]} has this message"]
    return at, -30, [f"-30: {project.slug} {project.releases[at]} does not have this message"]


def check_versions(k: Knowledge, versions: Any) -> dict[str, str]:
    """`versions` maps a project (slug, package or repository) to the release the log comes from."""
    if versions is None:
        return {}
    if not isinstance(versions, dict) or len(versions) > 50:
        raise ToolInputError("versions must map projects to releases, such as {\"vllm\": \"0.8.5\"} (at most 50)")
    out = {}
    for name, version in versions.items():
        try:
            check_version(version)
        except CatalogQueryError as exc:
            raise ToolInputError(f"versions[{str(name)[:60]!r}]: {exc}") from None
        try:
            slug = k.catalog.project(name).slug
        except CatalogQueryError:
            slug = str(name).strip().lower()  # a project without a catalog: nothing to check the version against
        out[slug] = version
    return out


def _record_extras(k: Knowledge, cid: str) -> dict[str, Any]:
    doc = k.api.document(cid)
    record = doc["record"]
    extras: dict[str, Any] = {"url": k.api.page_url(doc["links"]["html"]), "api": doc["links"]["json"]}
    source = record.get("source")
    if isinstance(source, dict):
        extras["raise_site"] = {key: source[key] for key in ("repo", "path", "line", "commit") if key in source}
        if "source" in doc["links"]:
            extras["raise_site"]["permalink"] = doc["links"]["source"]
    if record.get("versions"):
        extras["versions"] = [{k2: v for k2, v in ver.items() if not k2.startswith("behavior_change")} for ver in record["versions"]][:10]
    return extras


def get_error(k: Knowledge, name: Any, lang: Any = "en") -> tuple[dict[str, Any], str]:
    """The record's API document (the very JSON of api/errors/<id>.json) and a short text in `lang`."""
    lang = check_lang(lang)
    cid = k.resolve(name)
    doc = k.api.document(cid)
    return doc, summary_text(k, doc, lang, alias=name if name != cid else None)


def _pick(record: dict[str, Any], key: str, lang: str) -> Any:
    return record.get(f"{key}_zh") if lang == "zh" and record.get(f"{key}_zh") else record.get(key)


def summary_text(k: Knowledge, doc: dict[str, Any], lang: str, alias: str | None = None) -> str:
    """A record in a few lines of one language: what an agent reads before it decides to read the whole JSON."""
    record, links = doc["record"], doc["links"]
    error = record["error"]
    zh = lang == "zh"
    lines = [f"{record['id']}" + (f" (alias {alias})" if alias else "")]
    lines.append(("消息：" if zh else "Message: ") + (_pick(error, "message", lang) or ""))
    if zh and error.get("message_zh"):
        lines.append("英文消息：" + error["message"])
    lines.append(("说明：" if zh else "Explanation: ") + " ".join(str(_pick(record, "explanation", lang) or "").split()))
    solutions = _pick(record, "solutions", lang) or []
    if solutions:
        lines.append("解决方法：" if zh else "Solutions:")
        for n, item in enumerate(solutions[:5], 1):
            text = item if isinstance(item, str) else item.get("action") or item.get("text") or ""
            lines.append(f"  {n}. {' '.join(str(text).split())}")
    dead = record.get("dead_ends") or []
    if dead:
        lines.append("不要尝试：" if zh else "Don't try:")
        for item in dead[:3]:
            lines.append("  - " + " ".join(str(_pick(item, "action", lang) or "").split()))
    if doc.get("successor"):
        lines.append(("已停用，后继：" if zh else "Retired; successor: ") + doc["successor"]["id"])
    lines.append(("页面：" if zh else "Page: ") + k.api.page_url(links["html_zh" if zh else "html"]))
    lines.append(
        ("完整记录（中英文）：结构化结果，或资源 " if zh else "Full record (English and Chinese): the structured result, or the resource ")
        + f"errdex://errors/{record['id']}"
    )
    return "\n".join(lines)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _terms(query: str) -> list[str]:
    """Search terms: words (case-folded), and each run of Chinese characters as its overlapping pairs."""
    query = _fold(query)
    terms: list[str] = []
    for run in _CJK.findall(query):
        terms += [run] if len(run) <= 2 else [run[i : i + 2] for i in range(len(run) - 1)]
    terms += _WORD.findall(_CJK.sub(" ", query))
    return list(dict.fromkeys(terms))


WEIGHTS = {"title": 3, "message": 3, "explanation": 1}


def search(k: Knowledge, query: Any, lang: Any = "en", limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> dict[str, Any]:
    """Records whose title, message and explanation (in `lang`) hold every term of `query`, best first; when
    no record holds them all, those that hold the most (`all_terms` is then false).

    Deterministic: the score is the weighted count of term occurrences (title and message 3, explanation 1),
    ties broken by id."""
    lang = check_lang(lang)
    if not isinstance(query, str) or not query.strip() or len(query) > MAX_QUERY:
        raise ToolInputError(f"query must be 1 to {MAX_QUERY} characters of words to look for")
    terms = _terms(query)
    if not terms:
        raise ToolInputError("query holds no words to look for")
    check_limit(limit), check_cursor(cursor)
    scored = []
    for cid, folded in k.folded[lang]:
        counts: Counter[str] = Counter()
        for term in terms:
            for name, text in folded.items():
                counts[term] += WEIGHTS[name] * text.count(term)
        found = sum(1 for t in terms if counts[t])
        if found:
            scored.append((-found, -sum(counts.values()), cid))
    best = -min(scored)[0] if scored else 0
    scored = sorted(s for s in scored if -s[0] == best)
    chunk, paging = page(scored, limit, cursor)
    titles = dict(k.search_index[lang])
    items = []
    for _, score, cid in chunk:  # only the page's records are read
        doc = k.api.document(cid)
        record = doc["record"]
        items.append({
            "id": cid,
            "title": titles[cid]["title"] or record["error"]["message"],
            "message": _pick(record["error"], "message", lang),
            "explanation": _cut(str(_pick(record, "explanation", lang) or ""), SNIPPET),
            "repo": record.get("repo"),
            "severity": record["error"].get("severity"),
            "score": -score,
            "url": k.api.page_url(doc["links"]["html_zh" if lang == "zh" else "html"]),
            "api": doc["links"]["json"],
        })
    out = {"query": query, "lang": lang, "terms": terms, "all_terms": best == len(terms) or not scored, "results": items, **paging}
    if scored and best < len(terms):
        out["matched_terms"] = best
    return out


def explain_site(k: Knowledge, package: Any, version: Any, path: Any, line: Any, limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> dict[str, Any]:
    """What the catalog says is raised at `path:line` in that release of `package`."""
    try:
        out = catalog_explain(k.catalog, package, version, path, line)
    except CatalogQueryError as exc:
        raise ToolInputError(str(exc)) from None
    out["exact"], paging = page(out["exact"], limit, cursor)
    _link_records(k, out["exact"] + out["nearby"])
    return {**out, **paging}


def diff_errors(k: Knowledge, package: Any, from_version: Any, to_version: Any, limit: int = DEFAULT_LIMIT * 4, cursor: str | None = None) -> dict[str, Any]:
    """Catalog entries added, removed and moved between two releases of `package`."""
    try:
        out = catalog_diff(k.catalog, package, from_version, to_version)
    except CatalogQueryError as exc:
        raise ToolInputError(str(exc)) from None
    out["changes"], paging = page(out["changes"], limit, cursor)
    return {**out, **paging}


def _link_records(k: Knowledge, entries: list[dict[str, Any]]) -> None:
    """Name the records whose pattern matches a catalog entry's template with its holes filled, if any."""
    for entry in entries:
        sample = entry["template"].replace("{}", "0") if "template" in entry else None
        if not sample:
            continue
        with k.lock:
            found = k.matcher.scan_text(sample)
        hits = [h for h in found if id(k.matcher.patterns[h.pattern]) not in k.catalog_patterns]
        if hits:
            entry["records"] = sorted({k.matcher.patterns[h.pattern].id for h in hits})


def list_projects(k: Knowledge) -> dict[str, Any]:
    """Every project with records or catalog entries: how many of each, and the catalog's release range."""
    projects: dict[str, dict[str, Any]] = {}
    for entry in k.api.index.get("errors", []):
        slug = entry["id"].split("/", 1)[0] if "/" in entry["id"] else entry["id"]
        item = projects.setdefault(slug, {"project": slug, "records": 0, "repos": []})
        item["records"] += 1
        if entry.get("repo") and entry["repo"] not in item["repos"]:
            item["repos"].append(entry["repo"])
    by_repo = {repo: slug for slug, item in projects.items() for repo in item["repos"]}
    for slug, project in k.catalog.projects.items():
        # The catalog's slug may differ from the records' folder (llama.cpp, llama-cpp): join on the repository.
        target = slug if slug in projects else by_repo.get(project.repository or "", slug)
        item = projects.setdefault(target, {"project": target, "records": 0, "repos": []})
        if project.repository and project.repository not in item["repos"]:
            item["repos"].append(project.repository)
        item["catalog"] = {
            "project": slug,
            "entries": len(project.entries),
            "releases": len(project.releases),
            "first": project.releases[0] if project.releases else None,
            "last": project.releases[-1] if project.releases else None,
        }
        if project.package:
            item["catalog"]["package"] = project.package
    out: dict[str, Any] = {
        "projects": [projects[s] for s in sorted(projects)],
        "records": len(k.api.documents),
        "catalog_entries": sum(len(p.entries) for p in k.catalog.projects.values()),
        "dataset_version": k.api.dataset_version,
        "source": k.api.origin,
    }
    if k.catalog.problem_count:
        out["catalog_problems"] = {"count": k.catalog.problem_count, "first": k.catalog.problems[:5]}
    return out


def report_outcome(k: Knowledge, name: Any, fix: Any, outcome: Any, url: Any = None) -> dict[str, Any]:
    """A prefilled issue link that reports what a fix did for a record; nothing is written or sent."""
    cid = k.resolve(name)
    if not isinstance(fix, str) or not fix.strip() or len(fix) > MAX_FIX:
        raise ToolInputError(f"fix must say what was tried, in 1 to {MAX_FIX} characters (a solution's text, or your own words)")
    if outcome not in OUTCOMES:
        raise ToolInputError(f"outcome must be one of {', '.join(OUTCOMES)}")
    if url is not None:
        parts = urlsplit(url) if isinstance(url, str) and len(url) <= MAX_URL else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url):
            raise ToolInputError(f"url must be an http(s) link of at most {MAX_URL} characters to the evidence (an issue, a log, a PR)")
    if not k.repo_url:
        raise ToolInputError("this server knows no repository to report to (mkdocs.yml has no repo_url; start it with --repo-url)")
    doc = k.api.document(cid)
    page_link = k.api.page_url(doc["links"]["html"])
    title = f"[{cid}] outcome: {outcome.replace('_', ' ')}"

    def body_with(tried: str) -> str:
        return "\n".join([
            f"Record: {cid}",
            f"Page: {page_link}",
            f"Outcome: {outcome}",
            f"Dataset version: {k.api.dataset_version}",
            "",
            "What was tried:",
            tried,
            "",
            f"Evidence: {url}" if url else "Evidence: (none given)",
            "",
            "Reported with errdex mcp (report_outcome).",
        ])

    def link(body: str) -> str:
        return f"{k.repo_url.rstrip('/')}/issues/new?{urlencode({'title': title, 'body': body})}"

    tried = fix.strip()
    body = body_with(tried)
    shortened = False
    while len(link(body)) > MAX_ISSUE_URL and len(tried) > 40:  # hosts refuse very long URLs (Chinese text triples)
        tried, shortened = tried[: int(len(tried) * 0.8)].rstrip() + " …", True
        body = body_with(tried)
    out = {"id": cid, "issue_url": link(body), "title": title, "body": body}
    if shortened:
        out["shortened"] = "the fix text was cut to keep the link under 8000 characters; paste the rest into the issue"
    return {
        **out,
        "note": "Nothing was written or sent. Open issue_url to file the report as a public issue.",
    }
