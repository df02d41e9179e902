"""`errdex import`: records of other knowledge bases -> errdex records, losslessly and deterministically.

Two foreign shapes are understood (see the seeds): shape A, ErrLookup (camelCase; a bare record, the
`{"record": ..., "datasetVersion": ...}` envelope, a JSON list of either, or NDJSON) and shape B, deadends.dev
(snake_case with `_zh` fields). Every source field lands in the errdex record; a field that cannot be mapped is
reported by name, never dropped silently. Legacy ids become aliases.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import safefs
from .model import ID_PATTERN, TIERS, Record
from .yamlout import dump_record

# Short project names for ids, where the repository name alone reads badly.
PROJECT_NAMES = {
    "huggingface/text-generation-inference": "tgi",
    "ggml-org/llama.cpp": "llama-cpp",
    "ggerganov/llama.cpp": "llama-cpp",
    "sgl-project/sglang": "sglang",
}
# For shape B, which names no repository: the project prefix of its slug -> the repository.
KNOWN_REPOS = {
    "vllm": "vllm-project/vllm",
    "transformers": "huggingface/transformers",
    "tgi": "huggingface/text-generation-inference",
    "sglang": "sgl-project/sglang",
    "llama-cpp": "ggml-org/llama.cpp",
    "llamacpp": "ggml-org/llama.cpp",
    "pytorch": "pytorch/pytorch",
    "torch": "pytorch/pytorch",
}
RESOLVABLE = {"true": "fixable", "partial": "partially-fixable", "false": "not-fixable", True: "fixable", False: "not-fixable"}
ORDER = list(Record.model_fields)


class ImportFailure(Exception):
    """A file or entry that cannot be imported; the message names the file and the entry."""


@dataclass
class Imported:
    """One converted record and what the conversion has to say about it."""

    source: str
    record: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return self.record["id"]


def slugify(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")


def project_name(repo: str) -> str:
    return PROJECT_NAMES.get(repo, slugify(repo.split("/")[-1]))


def _compact(value: Any) -> Any:
    """Drop None, empty strings, empty lists and empty mappings, recursively: optional means absent."""
    if isinstance(value, dict):
        out = {k: _compact(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [_compact(v) for v in value if v not in (None, "")]
    return value


def _ordered(record: dict[str, Any]) -> dict[str, Any]:
    return {key: record[key] for key in ORDER if key in record}


def _date(value: Any) -> str | None:
    return value[:10] if isinstance(value, str) and re.match(r"\d{4}-\d{2}-\d{2}", value) else None


def _take(entry: dict[str, Any], used: set[str], key: str) -> Any:
    used.add(key)
    return entry.get(key)


def _unmapped(entry: dict[str, Any], used: set[str], where: str) -> list[str]:
    return [f"{where}: field {key!r} has no place in errdex records and was not imported" for key in sorted(set(entry) - used)]


def convert_errlookup(entry: dict[str, Any], where: str, envelope: dict[str, Any] | None = None) -> Imported:
    """Shape A (ErrLookup) -> an errdex record."""
    used: set[str] = set()
    t = lambda key: _take(entry, used, key)  # noqa: E731
    repo, slug, legacy = t("repo"), t("slug"), t("id")
    message = t("errorMessage")
    if not isinstance(repo, str) or not isinstance(message, str):
        raise ImportFailure(f"{where}: an ErrLookup record needs 'repo' and 'errorMessage'")
    record_id = f"{project_name(repo)}/{slugify(slug or message)[:60].strip('-')}"
    notes: list[str] = []
    error_type = t("errorType")
    category = {"http": "http_error", "validation": "validation_error"}.get(error_type, "runtime_error")
    notes.append(f"{where}: category set to {category!r} from errorType {error_type!r}; review it")
    source = {
        "repo": repo,
        "path": t("filePath"),
        "line": t("lineNumber"),
        "start_line": t("sourceCodeStart"),
        "end_line": t("sourceCodeEnd"),
        "commit": t("analyzedSha"),
        "snippet": t("sourceCode"),
    }
    analyzed_sha = source["commit"]
    github_url = t("githubUrl")
    if all(source.values()):
        derived = f"https://github.com/{repo}/blob/{source['commit']}/{source['path']}#L{source['start_line']}-L{source['end_line']}"
        if github_url and github_url != derived:
            notes.append(f"{where}: githubUrl {github_url!r} differs from the permalink derived from the source fields")
    else:
        if any(source.values()):
            notes.append(f"{where}: the source block is incomplete and was not imported")
        source = {}
    example_fix = t("exampleFix")
    if isinstance(example_fix, str):
        notes.append(f"{where}: exampleFix is text, not before/after code; kept as example_fix.note")
        example_fix = {"note": example_fix}
    elif isinstance(example_fix, dict):
        example_fix = {"before": example_fix.get("before"), "after": example_fix.get("after"), "note": example_fix.get("note")}
    analyzed_at = t("analyzedAt")
    record = {
        "id": record_id,
        "aliases": [legacy] if legacy else [],
        "repo": repo,
        "domain": "llm",
        "category": category,
        "tags": [slugify(tag) for tag in t("tags") or []],
        "error": {
            "message": message,
            "regex": t("messagePattern"),
            "exception_class": t("errorClass"),
            "type": error_type,
            "code": t("errorCode"),
            "http_status": t("httpStatus"),
            "severity": t("severity"),
        },
        "explanation": t("documentation"),
        "triggers": t("triggerScenarios"),
        "common_situations": t("commonSituations"),
        "solutions": t("solutions"),
        "example_fix": example_fix,
        "handling": {
            "strategy": t("handlingStrategy"),
            "validate_before": t("validationCode"),
            "type_guard": t("typeGuard"),
            "try_catch": t("tryCatchPattern"),
        },
        "prevention": t("preventionTips"),
        "source": source,
        "provenance": {
            "verification_tier": "ai_generated",
            "last_updated": _date(analyzed_at) or _date((envelope or {}).get("datasetVersion")),
            "analyzed_commit": analyzed_sha,
            "analyzed_at": analyzed_at,
            "origin": {
                "dataset": "errlookup",
                "id": legacy,
                "slug": slug,
                "schema_version": t("schemaVersion"),
                "dataset_version": (envelope or {}).get("datasetVersion"),
                "background_tag": t("backgroundTag"),
            },
        },
    }
    if record["handling"]["strategy"] is None:
        record["handling"] = {}
    notes += _unmapped(entry, used, where)
    return Imported(where, _ordered(_compact(record)), notes)


def convert_deadends(entry: dict[str, Any], where: str, repo_hint: str | None = None) -> Imported:
    """Shape B (deadends.dev-like) -> an errdex record."""
    used: set[str] = set()
    t = lambda key: _take(entry, used, key)  # noqa: E731
    legacy, signature = t("id"), t("signature")
    if not isinstance(legacy, str) or not isinstance(signature, str):
        raise ImportFailure(f"{where}: a deadends record needs 'id' and 'signature'")
    slug = legacy.split("/")[-1]
    project = next((p for p in sorted(KNOWN_REPOS, key=len, reverse=True) if slug.startswith(p + "-")), None)
    repo = repo_hint or (KNOWN_REPOS[project] if project else None)
    if repo is None:
        raise ImportFailure(f"{where}: cannot tell which repository raises {legacy!r}; pass --repo OWNER/NAME")
    name = project_name(repo)
    record_id = f"{name}/{slug[len(name) + 1:] if slug.startswith(name + '-') else slug}"
    notes: list[str] = []
    klass = re.match(r"([A-Za-z_][\w.]*(?:Error|Exception))\b", signature)
    regex = t("regex") or re.escape(signature)
    root_cause, root_cause_zh = t("root_cause"), t("root_cause_zh")
    notes.append(f"{where}: explanation copied from root_cause (deadends has no separate explanation)")
    workarounds_zh = t("workarounds_zh") or []
    workarounds = []
    for i, item in enumerate(t("workarounds") or []):
        zh = workarounds_zh[i] if i < len(workarounds_zh) else None
        target = "how_zh" if item.get("how") else "action_zh"
        workarounds.append({
            "action": item.get("action") or item.get("how"),
            "action_zh": zh if target == "action_zh" else None,
            "how": item.get("how"),
            "how_zh": zh if target == "how_zh" else None,
            "condition": item.get("condition"),
            "sources": item.get("sources"),
        })
        notes += _unmapped(item, {"action", "how", "success_rate", "condition", "sources"}, f"{where} workarounds[{i}]")
    # The source's typed rates become its attributed estimates: pages show them as "estimate from deadends.dev,
    # unverified", never as counted numbers (ours come from linked reports only).
    estimates = []
    dead_ends = []
    for i, item in enumerate(t("dead_ends") or []):
        dead_ends.append({k: item.get(k) for k in ("action", "why_fails", "condition", "sources")})
        if isinstance(item.get("fail_rate"), (int, float)):
            estimates.append({"field": f"/dead_ends/{i}", "kind": "fail_rate", "value": item["fail_rate"]})
        notes += _unmapped(item, {"action", "why_fails", "fail_rate", "condition", "sources"}, f"{where} dead_ends[{i}]")
    graph = t("transition_graph") or {}
    tier = t("verification_tier")
    if tier not in TIERS:
        notes.append(f"{where}: verification_tier {tier!r} is not one of ours; recorded as ai_generated")
    resolvable = t("resolvable")
    record = {
        "id": record_id,
        "aliases": [legacy] + [a for a in t("aliases") or [] if a != legacy],
        "repo": repo,
        "domain": t("domain") or "llm",
        "category": t("category"),
        "subcategory": t("subcategory"),
        "tags": [slugify(tag) for tag in t("tags") or []],
        "error": {
            "message": signature,
            "message_zh": t("signature_zh"),
            "regex": regex,
            "exception_class": klass[1] if klass else None,
            "type": "exception" if klass else "console",
            "code": t("error_code"),
            "severity": "error",
            "examples": [{"text": signature, "constructed": True}],
        },
        "explanation": root_cause,
        "explanation_zh": root_cause_zh,
        "root_cause": root_cause,
        "root_cause_zh": root_cause_zh,
        "root_cause_type": t("root_cause_type"),
        "solutions": [w["action"] for w in workarounds if w["action"]][:1] or None,
        "dead_ends": dead_ends,
        "workarounds": workarounds,
        "versions": [{k: v for k, v in version.items() if v is not None} for version in t("versions") or []],
        "os_specific": t("os_specific"),
        "related": {
            "leads_to": graph.get("leads_to"),
            "preceded_by": graph.get("preceded_by"),
            "confused_with": graph.get("frequently_confused_with"),
        },
        "official_docs": {"url": t("official_doc_url"), "section": t("official_doc_section")},
        "resolvable": RESOLVABLE.get(resolvable, resolvable),
        "provenance": {
            "verification_tier": tier if tier in TIERS else "ai_generated",
            "last_updated": t("last_updated"),
            "origin": {
                "dataset": "deadends",
                "id": legacy,
                "verification_tier": tier if tier in TIERS else None,
                "locale": t("locale"),
                "signature": signature,
                "signature_zh": entry.get("signature_zh"),
                "regex": entry.get("regex"),
                "first_seen": t("first_seen"),
                "last_confirmed": t("last_confirmed"),
                "estimates": estimates + [
                    {"field": f"/workarounds/{i}", "kind": "success_rate", "value": w["success_rate"]}
                    for i, w in enumerate(entry.get("workarounds") or []) if isinstance(w.get("success_rate"), (int, float))
                ] + [
                    {"kind": key, "value": value}
                    for key in ("fix_success_rate", "confidence", "evidence_count")
                    if isinstance(value := t(key), (int, float))
                ],
            },
        },
    }
    if record["solutions"]:
        notes.append(f"{where}: solutions taken from the first workaround (deadends lists no separate solutions)")
    if not record["official_docs"]["url"]:
        record["official_docs"] = {}
    notes += _unmapped(entry, used, where)
    return Imported(where, _ordered(_compact(record)), notes)


def _entries(path: Path) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(where, entry, envelope) for every entry a file holds."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailure(f"{path}: cannot read the file: {exc}") from exc
    try:
        body = json.loads(text)
        items = body if isinstance(body, list) else [body]
        located = [(f"{path} entry {i}" if isinstance(body, list) else str(path), item) for i, item in enumerate(items)]
    except json.JSONDecodeError as whole:
        located = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                located.append((f"{path} line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise ImportFailure(
                    f"{path}: not JSON ({whole.msg} at line {whole.lineno} column {whole.colno}) "
                    f"and not NDJSON (line {number}: {exc.msg} at column {exc.colno})"
                ) from exc
    out = []
    for where, item in located:
        if not isinstance(item, dict):
            raise ImportFailure(f"{where}: expected a JSON object, found {type(item).__name__}")
        if isinstance(item.get("record"), dict):
            out.append((where, item["record"], item))
            extra = sorted(set(item) - {"record", "datasetVersion"})
            if extra:
                raise ImportFailure(f"{where}: unknown envelope fields {extra}")
        else:
            out.append((where, item, None))
    return out


def convert_file(path: Path, repo_hint: str | None = None) -> list[Imported]:
    """Every record a file holds, converted; raises ImportFailure naming the file and entry."""
    converted = []
    for where, entry, envelope in _entries(path):
        if "errorMessage" in entry:
            converted.append(convert_errlookup(entry, where, envelope))
        elif "signature" in entry:
            converted.append(convert_deadends(entry, where, repo_hint))
        else:
            raise ImportFailure(f"{where}: neither an ErrLookup record (no 'errorMessage') nor a deadends record (no 'signature')")
    return converted


def write_records(imported: list[Imported], root: Path, force: bool) -> tuple[list[Path], list[str]]:
    """Write each record to root/<id>.yaml; existing files are kept unless `force`. Returns written paths and refusals."""
    written, refused = [], []
    seen: set[str] = set()
    for item in sorted(imported, key=lambda i: i.id):
        if not re.fullmatch(ID_PATTERN, item.id):
            refused.append(f"{item.source}: derived id {item.id!r} is not a valid id")
            continue
        if item.id in seen:
            refused.append(f"{item.source}: another entry in this import already has the id {item.id!r}")
            continue
        seen.add(item.id)
        path = root / f"{item.id}.yaml"
        if path.exists() and not force:
            refused.append(f"{item.source}: {path} already exists (use --force to overwrite it)")
            continue
        try:
            safefs.write_text(path, dump_record(item.record), root)
        except safefs.UnsafePath as exc:
            refused.append(f"{item.source}: {exc}")
            continue
        written.append(path)
    return written, refused
