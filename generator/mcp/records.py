"""get_error and search: one record as the API publishes it, and full-text search over the records."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ..bundle.knowledge import DEFAULT_LIMIT, Knowledge, ToolInputError, check_cursor, check_lang, check_limit, cut, fold, page

MAX_QUERY = 500
SNIPPET = 240  # characters of an explanation shown in a search result
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[^\W_]+(?:[._-][^\W_]+)*")


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




def _terms(query: str) -> list[str]:
    """Search terms: words (case-folded), and each run of Chinese characters as its overlapping pairs."""
    query = fold(query)
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
            "explanation": cut(str(_pick(record, "explanation", lang) or ""), SNIPPET),
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
