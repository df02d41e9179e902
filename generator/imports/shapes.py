"""The foreign shapes -> errdex records. ErrLookup (its `ErrorEntry`, schema version 2) and deadends.dev, in
its published canon shape (`data/canons/<domain>/<slug>/<env>.json`) and in the flat shape of the seed; the
field tables are in CONTRIBUTING.md. Every field lands in the record or is reported by name."""

from __future__ import annotations

import re
from typing import Any

from ..match.backtrack import slow_input
from ..checks.regex import compile_error, compile_pattern, too_broad
from .base import HOLE, KNOWN_REPOS, dct, lst, RESOLVABLE, ImportFailure, Imported, Taker, compact, date, literal_regex, ordered, our_category, record_id, slugify, template_regex, unplaced
from ..languages import language_of
from ..records.model import CODE, TEXT, TIERS
from ..match.portable import analyse

REVIEW_TIERS = {"auto_generated": "ai_generated", "human_reviewed": "community", "community_verified": "community"}
# A line that opens the before or the after half of a text example fix: `// BEFORE (throws):`, `# After:`.
_HALF = re.compile(r"^[ \t]*(?:#+|//+|--|/\*+|<!--)?[ \t]*\(?(before|after)\b[^\n]{0,60}$", re.IGNORECASE | re.MULTILINE)


def usable_regex(pattern: Any, lines: list[str]) -> str | None:
    """Why the source's pattern cannot be ours (not portable, slow, too broad, misses a line), or None."""
    if not isinstance(pattern, str) or not pattern:
        return "there is none"
    analysis = analyse(pattern)
    if analysis.problems:
        return f"it uses {analysis.problems[0].construct}" + (", which backtracks" if analysis.problems[0].slow else ", which is not portable")
    if analysis.broken or compile_error(pattern) is not None:
        return "it is not in the portable subset"
    if analysis.tree is not None and slow_input(analysis.tree, analysis.ignore_case) is not None:
        return "it backtracks too long"
    if too_broad(pattern, analysis.literals) is not None:
        return "it is too broad"
    missed = [line for line in lines if compile_pattern(pattern).search(line) is None]
    return f"it does not match {missed[0]!r}" if missed else None


def split_fix(text: str) -> tuple[str, str, str] | None:
    """(note, before, after) from a text example fix with before/after markers, or None."""
    marks = [(m.start(), m.end(), m[1].lower()) for m in _HALF.finditer(text)]
    kinds = [k for _, _, k in marks]
    if kinds.count("before") != 1 or kinds.count("after") != 1 or kinds.index("before") > kinds.index("after"):
        return None
    (b0, b1, _), (a0, a1, _) = marks[kinds.index("before")], marks[kinds.index("after")]
    note, before, after = text[:b0].strip(), text[b1:a0].strip("\n"), text[a1:].strip("\n")
    if not before.strip() or not after.strip() or before.strip() == after.strip():
        return None
    return note, before, after


def convert_errlookup(entry: dict[str, Any], where: str, envelope: dict[str, Any] | None = None) -> Imported:
    """ErrLookup's `ErrorEntry` (a repo file's list item, or the API's `{"record": ..., "datasetVersion": ...}`)."""
    t = Taker(entry, where)
    repo, slug, legacy, message = t("repo"), t("slug"), t("id"), t("errorMessage")
    if not isinstance(repo, str) or not isinstance(message, str):
        raise ImportFailure(f"{where}: an ErrLookup record needs 'repo' and 'errorMessage'")
    notes: list[str] = []
    error_type = t("errorType")
    category = {"http": "api_error", "validation": "validation_error"}.get(error_type if isinstance(error_type, str) else "", "runtime_error")
    notes.append(f"{where}: category set to {category!r} from errorType {error_type!r}; review it")
    code = t("sourceCode")
    source = {
        "repo": repo, "path": t("filePath"), "line": t("lineNumber"), "start_line": t("sourceCodeStart"),
        "end_line": t("sourceCodeEnd"), "commit": t("analyzedSha"),
        # ErrLookup joins the lines with "\n" and adds no final newline, so a block ending on an empty line ends
        # with "\n": one more newline keeps that empty line a line of the snippet.
        "snippet": code + "\n" if isinstance(code, str) and code else code,
    }
    github_url = t("githubUrl")
    lines_ok = all(isinstance(source[k], int) and not isinstance(source[k], bool) for k in ("line", "start_line", "end_line"))
    if all(source.values()) and lines_ok and isinstance(code, str) and len(code.split("\n")) == source["end_line"] - source["start_line"] + 1:
        derived = f"https://github.com/{repo}/blob/{source['commit']}/{source['path']}"
        if github_url and not (isinstance(github_url, str) and github_url.startswith(derived)):
            notes.append(f"{where}: githubUrl {github_url!r} differs from the permalink derived from the source fields")
    else:
        if any(source.values()):
            notes.append(f"{where}: the source block is incomplete or its lines do not add up; fields 'filePath', "
                         "'lineNumber', 'sourceCode', 'sourceCodeStart', 'sourceCodeEnd', 'githubUrl' were not imported")
        source = {}
    solutions = [s for s in lst(t("solutions")) if isinstance(s, str)]
    example_fix, fix_text = None, t("exampleFix")
    if isinstance(fix_text, dict):  # an older shape: already before/after
        example_fix = {k: fix_text.get(k) for k in ("before", "after", "note")}
    elif isinstance(fix_text, str) and fix_text.strip():
        halves = split_fix(fix_text)
        if halves and max(len(halves[1]), len(halves[2])) <= CODE and len(halves[0]) <= TEXT:
            example_fix = {"before": halves[1], "after": halves[2], "note": halves[0],
                           "language": language_of(None, source.get("path") or (t("filePath") if isinstance(t("filePath"), str) else None))}
            notes.append(f"{where}: exampleFix split at its before/after markers into example_fix")
        elif len(fix_text) <= TEXT:
            solutions.append(fix_text)
            notes.append(f"{where}: exampleFix has no before/after halves; kept as the last solution")
        else:
            notes += unplaced(where, ["exampleFix"])
    if example_fix and example_fix.get("language") == "text":
        example_fix.pop("language")
    if not solutions:
        raise ImportFailure(f"{where}: the record has no solutions and no example fix; errdex records need one")
    pattern = t("messagePattern")
    why = usable_regex(pattern, [HOLE.sub("1", message)])
    if why is not None:
        made = template_regex(message)
        notes.append(f"{where}: its messagePattern is not used ({why}); the pattern is made from the message, theirs is kept in provenance.origin.regex")
        if usable_regex(made, [HOLE.sub("1", message)]) is not None:
            notes.append(f"{where}: the pattern made from the message needs review: {usable_regex(made, [HOLE.sub('1', message)])}")
    analyzed_at = t("analyzedAt")
    record = {
        "id": record_id(repo, slug or message), "aliases": [legacy] if legacy else [], "repo": repo,
        "domain": "llm", "category": category, "tags": [slugify(tag) for tag in lst(t("tags"))],
        "error": {
            "message": message, "regex": pattern if why is None else made, "exception_class": t("errorClass"), "type": error_type,
            "code": t("errorCode"), "http_status": t("httpStatus"), "severity": t("severity"),
        },
        "explanation": t("documentation"), "triggers": t("triggerScenarios"), "common_situations": t("commonSituations"),
        "solutions": solutions, "example_fix": example_fix,
        "handling": {"strategy": t("handlingStrategy"), "validate_before": t("validationCode"), "type_guard": t("typeGuard"), "try_catch": t("tryCatchPattern")},
        "prevention": t("preventionTips"), "source": source,
        "provenance": {
            "verification_tier": "ai_generated",
            "last_updated": date(analyzed_at) or date((envelope or {}).get("datasetVersion")),
            "analyzed_commit": source.get("commit") or entry.get("analyzedSha"), "analyzed_at": analyzed_at,
            "origin": {
                "dataset": "errlookup", "id": legacy, "slug": slug, "regex": pattern if why is not None else None, "schema_version": t("schemaVersion"),
                "dataset_version": (envelope or {}).get("datasetVersion"), "background_tag": t("backgroundTag"),
            },
        },
    }
    if record["handling"]["strategy"] is None:
        if any(record["handling"].values()):
            notes += unplaced(where, [k for k in ("validationCode", "typeGuard", "tryCatchPattern") if entry.get(k)])
        record["handling"] = {}
    notes += t.unmapped({"$comment"})
    return Imported(where, ordered(compact(record)), notes)


def _fixes(items: Any, kind: str, rate: str, where: str, zh: list[Any] | None = None) -> tuple[list[dict], list[dict], list[str]]:
    """Dead ends or workarounds of either deadends shape: (fixes, their estimates, notes)."""
    fixes, estimates, notes = [], [], []
    zh = lst(zh)
    for i, item in enumerate(lst(items)):
        if not isinstance(item, dict):
            notes += unplaced(where, [f"{kind}[{i}]"])
            continue
        t = Taker(item, f"{where} {kind}[{i}]")
        fix = {"action": t("action"), "why_fails": t("why_fails"), "how": t("how"), "condition": t("condition"), "sources": t("sources")}
        if kind == "workarounds":
            fix.pop("why_fails")
            fix["action"] = fix["action"] or fix["how"]
            if fix["how"] == fix["action"]:
                fix["how"] = None
            text = zh[i] if zh and i < len(zh) else None
            fix["how_zh" if fix["how"] else "action_zh"] = text
        else:
            fix.pop("how")
        fix["sources"] = [s for s in lst(fix["sources"]) if isinstance(s, str) and re.match(r"https?://\S+$", s)]
        if not (fix["why_fails"] if kind == "dead_ends" else fix["action"]):
            notes += unplaced(where, [f"{kind}[{i}]"])
            continue
        if isinstance(value := t(rate), (int, float)) and not isinstance(value, bool):
            estimates.append({"field": f"/{kind}/{len(fixes)}", "kind": rate, "value": value})
        fixes.append(fix)
        notes += t.unmapped()
    return fixes, estimates, notes


def _repo(candidates: list[Any], repo_hint: str | None, legacy: str, where: str) -> tuple[str, bool]:
    """The repository, and whether it was told from the record's names (rather than given with --repo)."""
    for name in candidates:
        key = slugify(name) if isinstance(name, str) else ""
        found = next((KNOWN_REPOS[p] for p in sorted(KNOWN_REPOS, key=len, reverse=True) if key == p or key.startswith(p + "-")), None)
        if found:
            return found, True
    if repo_hint:
        return repo_hint, False
    raise ImportFailure(f"{where}: cannot tell which repository raises {legacy!r}; pass --repo OWNER/NAME")


def convert_deadends(entry: dict[str, Any], where: str, repo_hint: str | None = None) -> Imported:
    """A deadends record, in the published canon shape (`error`, `verdict`, `environment`, `metadata` objects) or
    in the flat shape of the seed (`signature`, `root_cause`, `*_zh` beside each field)."""
    t = Taker(entry, where)
    canon = isinstance(entry.get("error"), dict)
    e = t.sub("error") if canon else t
    v, env, meta = (t.sub("verdict"), t.sub("environment"), t.sub("metadata")) if canon else (t, Taker({}, where), t)
    legacy, signature = t("id"), e("signature")
    if not isinstance(legacy, str) or not isinstance(signature, str) or not signature.strip():
        raise ImportFailure(f"{where}: a deadends record needs 'id' and 'signature'")
    parts = legacy.split("/")
    runtime = env.sub("runtime")
    domain = e("domain")
    repo, told = _repo([parts[1] if len(parts) > 2 else parts[-1], runtime("name"), domain] if canon else [parts[-1]], repo_hint, legacy, where)
    notes = [f"{where}: repository {repo!r} told from the record's names; review it"] if canon and told else []
    rid = record_id(repo, parts[1] if canon and len(parts) > 2 else parts[-1])
    # deadends `aliases` are other texts of the message, not ids: they become examples where the pattern finds them.
    variants = [a for a in lst(t("aliases")) if isinstance(a, str) and a.strip() and a != signature]
    theirs = e("regex")
    why = usable_regex(theirs, [signature])
    regex = theirs if why is None else literal_regex(signature)
    if why is not None:
        notes.append(f"{where}: its regex is not used ({why}); the pattern is the signature itself, theirs is kept in provenance.origin.regex")
    summary = v("summary") if canon else None
    root_cause, root_cause_zh = (None, None) if canon else (t("root_cause"), t("root_cause_zh"))
    if not canon:
        notes.append(f"{where}: explanation copied from root_cause (deadends has no separate explanation)")
    dead_ends, dead_rates, more = _fixes(t("dead_ends"), "dead_ends", "fail_rate", where)
    workarounds, work_rates, more2 = _fixes(t("workarounds"), "workarounds", "success_rate", where, t("workarounds_zh"))
    notes += more + more2
    graph = dct(t("transition_graph"))
    links = {ours: [i if isinstance(i, str) else i.get("error_id") for i in lst(graph.get(theirs_key)) if isinstance(i if isinstance(i, str) else dct(i).get("error_id"), str)]
             for ours, theirs_key in (("leads_to", "leads_to"), ("preceded_by", "preceded_by"), ("confused_with", "frequently_confused_with"))}
    extra = sorted({f"transition_graph.{k}[].{f}" for k in ("leads_to", "preceded_by", "frequently_confused_with")
                    for item in lst(graph.get(k)) if isinstance(item, dict) for f in item if f != "error_id"})
    notes += unplaced(where, extra)
    tier = t("verification_tier") if not canon else REVIEW_TIERS.get(r if isinstance(r := meta("review_status"), str) else "")
    if not canon and tier not in TIERS:
        notes.append(f"{where}: verification_tier {tier!r} is not one of ours; recorded as ai_generated")
    versions = [{k: x for k, x in item.items() if x is not None} for item in lst(t("versions")) if isinstance(item, dict)]
    if canon and runtime("name"):
        versions.append({"version": f"{runtime('name')} {runtime('version_range') or ''}".strip()})
    environment = {f"{k}.{sub}": str(x) for k in ("hardware", "additional") for sub, x in sorted(dct(env(k)).items())}
    environment |= {k: env(k) for k in ("os", "python", "framework") if isinstance(env.entry.get(k), str)}
    rates = [{"kind": k, "value": x} for k in ("fix_success_rate", "confidence") if isinstance(x := v(k), (int, float))]
    if isinstance(x := meta("evidence_count"), int):
        rates.append({"kind": "evidence_count", "value": x})
    category, subcategory = our_category(e("category"), t("subcategory"), notes, where)
    record = {
        "id": rid, "aliases": [legacy] if re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*){0,3}", legacy) else [],
        "repo": repo, "domain": "llm" if canon else (domain or "llm"), "category": category, "subcategory": subcategory,
        "tags": [slugify(tag) for tag in ([domain] if canon else lst(t("tags")))],
        "error": {
            "message": signature, "message_zh": None if canon else t("signature_zh"), "regex": regex,
            "exception_class": (m := re.match(r"([A-Za-z_][\w.]*(?:Error|Exception))\b", signature)) and m[1],
            "type": "exception" if m else "console", "code": t("error_code"), "severity": "error",
            "examples": [{"text": signature, "constructed": True}],
        },
        "explanation": summary or root_cause, "explanation_zh": root_cause_zh,
        "root_cause": root_cause, "root_cause_zh": root_cause_zh, "root_cause_type": t("root_cause_type"),
        "solutions": [w["action"] for w in workarounds if w["action"]][:1] or None,
        "dead_ends": dead_ends, "workarounds": workarounds, "versions": versions, "os_specific": t("os_specific"),
        "official_docs": {"url": t("official_doc_url"), "section": t("official_doc_section")},
        "resolvable": RESOLVABLE.get(r, r) if isinstance(r := v("resolvable"), (str, bool)) else r,
        "provenance": {
            "verification_tier": "ai_generated",
            "last_updated": v("last_updated"),
            "origin": {
                "dataset": "deadends", "id": legacy, "url": t("url"), "verification_tier": tier if tier in TIERS else None,
                "locale": t("locale"), "signature": signature, "signature_zh": entry.get("signature_zh"),
                "regex": theirs if isinstance(theirs, str) else None, "first_seen": e("first_seen"),
                "last_confirmed": e("last_confirmed"), "format_version": t("schema_version"), "environment": environment,
                "estimates": dead_rates + work_rates + rates,
            },
        },
    }
    if canon:
        used = {"generated_by", "generation_date", "last_verification", "page_views", "ai_agent_hits", "human_hits"}
        notes += unplaced(where, [f"metadata.{k}" for k in sorted(used & set(meta.entry))])
        meta.used |= used
    if not record["solutions"]:
        raise ImportFailure(f"{where}: the record has no workaround to take a solution from; errdex records need one")
    notes.append(f"{where}: solutions taken from the first workaround (deadends lists no separate solutions)")
    if not record["official_docs"]["url"]:
        record["official_docs"] = {}
    for part in ((e, v, env, runtime, meta) if canon else ()):
        notes += part.unmapped()
    notes += t.unmapped({"error", "verdict", "environment", "metadata"} if canon else set())
    env_slug = slugify(parts[2]) if canon and len(parts) > 2 else None
    alternative = f"{rid}-{env_slug}" if env_slug else None
    return Imported(where, ordered(compact(record)), notes, variants, compact(links), alternative)
