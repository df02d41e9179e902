"""CAT: the harvested catalog (data/catalog/<project>.jsonl and releases.json), checked as records are.

Each line is one entry: JSON (CAT001), valid against schema/catalog.schema.json (CAT002), with a unique id
(CAT003) that is its project and template's hash (CAT004), a portable (CAT005), specific (CAT006) pattern that
finds its own template (CAT009), written canonically and in id order (CAT007), and versions that are the
project's harvested releases, in order (CAT008).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from ..findings import Finding, make
from ..portable import analyse
from .regex import compile_error, compile_pattern, too_broad


def normalise(template: str) -> str:
    """A template with its runs of whitespace made one space: respacing a message does not make it another."""
    return " ".join(template.split())


def entry_id(project: str, template: str) -> str:
    """A catalog entry's stable id: the project and the first 16 hex of sha256(project NUL normalised template)."""
    digest = hashlib.sha256(f"{project}\0{normalise(template)}".encode("utf-8")).hexdigest()
    return f"{project}/{digest[:16]}"

CATALOG_SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema" / "catalog.schema.json"


@lru_cache(maxsize=1)
def _validator():
    import jsonschema_rs

    return jsonschema_rs.validator_for(json.loads(CATALOG_SCHEMA_PATH.read_text(encoding="utf-8")))


def _fill(template: str) -> str:
    return template.replace("{}", "x1")


def release_order(folder: Path) -> tuple[dict[str, list[str]], list[Finding]]:
    path = folder / "releases.json"
    if not path.is_file():
        return {}, []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {slug: [row["version"] for row in rows] for slug, rows in data.items()}, []
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, [make("CAT001", str(path), "", f"releases.json does not parse as {{project: [{{version, ...}}]}}: {exc}")]


def check_catalog_file(path: Path, releases: list[str] | None) -> Iterator[Finding]:
    """Every finding in one <project>.jsonl; `releases` is the project's release order from releases.json."""

    slug = path.name[: -len(".jsonl")]
    order = {v: i for i, v in enumerate(releases or [])}
    seen: dict[str, int] = {}
    previous_id = ""
    with open(path, encoding="utf-8", newline="") as stream:
        for n, line in enumerate(stream, 1):
            where = (n, 1)
            try:
                entry = json.loads(line)
            except ValueError as exc:
                yield make("CAT001", str(path), "", f"line {n} is not JSON: {exc}", where)
                continue
            if not isinstance(entry, dict):
                yield make("CAT001", str(path), "", f"line {n} is not a JSON object", where)
                continue
            errors = list(_validator().iter_errors(entry))
            if errors:
                for error in errors[:3]:
                    pointer = "/" + "/".join(str(p) for p in error.instance_path)
                    yield make("CAT002", str(path), pointer, f"{entry.get('id', f'line {n}')}: {pointer}: {error.message}", where)
                continue
            eid = entry["id"]
            if eid in seen:
                yield make("CAT003", str(path), "/id", f"{eid} is also on line {seen[eid]}", where)
                continue
            seen[eid] = n
            if entry["project"] != slug or eid != entry_id(slug, entry["template"]):
                yield make("CAT004", str(path), "/id", f"{eid}: expected {entry_id(slug, entry['template'])} (project {slug!r} and the template's hash)", where)
            canonical = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"
            if line != canonical or eid < previous_id:
                yield make("CAT007", str(path), "", f"{eid}: lines must be canonical JSON (keys sorted, compact, LF) in id order", where)
            previous_id = max(previous_id, eid)
            pattern = entry["pattern"]
            analysis = analyse(pattern)
            problem = compile_error(pattern) if analysis.portable else None
            if not analysis.portable or problem:
                what = str(analysis.problems[0]) if analysis.problems else problem or "could not be checked"
                yield make("CAT005", str(path), "/pattern", f"{eid}: the pattern is not portable: {what}", where)
                continue
            broad = too_broad(pattern, analysis.literals)
            if broad:
                yield make("CAT006", str(path), "/pattern", f"{eid}: {broad}", where)
            if compile_pattern(pattern).search(_fill(entry["template"]).replace("\n", " ")) is None and not any(
                compile_pattern(pattern).search(_fill(part)) for part in entry["template"].split("\n")
            ):
                yield make("CAT009", str(path), "/pattern", f"{eid}: the pattern does not find the template itself (holes filled with 'x1')", where)
            if releases is not None:
                yield from _check_versions(path, entry, order, where)


def _check_versions(path: Path, entry: dict, order: dict[str, int], where: tuple[int, int]) -> Iterator[Finding]:
    eid = entry["id"]
    versions = ([v for r in entry["releases"] for v in r] + [v for s in entry["sites"] for v in (s["from"], s["to"])]
                + [pair[0] for s in entry["sites"] for pair in s.get("lines", [])] + [entry["first"], entry["last"]])
    unknown = sorted({v for v in versions if v not in order})
    if unknown:
        yield make("CAT008", str(path), "/releases", f"{eid}: {', '.join(unknown)} not among the project's releases in releases.json", where)
        return
    flat = [order[v] for r in entry["releases"] for v in r]
    sites = [order[v] for s in entry["sites"] for v in (s["from"], s["to"])]
    if flat != sorted(flat) or sites != sorted(sites) or entry["first"] != entry["releases"][0][0] or entry["last"] != entry["releases"][-1][1]:
        yield make("CAT008", str(path), "/releases", f"{eid}: ranges must run oldest to newest, first/last must be the ranges' ends", where)
    for n, site in enumerate(entry["sites"]):
        lines = site.get("lines")
        if lines is None:
            continue
        starts = [order[first] for first, _ in lines]
        if (starts[0] != order[site["from"]] or starts != sorted(set(starts)) or starts[-1] > order[site["to"]]
                or lines[-1][1] != site["line"] or any(a[1] == b[1] for a, b in zip(lines, lines[1:]))):
            yield make("CAT008", str(path), f"/sites/{n}/lines", f"{eid}: a site's lines start at its `from`, run oldest to "
                       "newest within its range, each with another line than the one before, the last being `line`", where)


def check_catalog(folder: Path) -> list[Finding]:
    """Findings for every <project>.jsonl in a catalog folder."""
    releases, findings = release_order(folder)
    for path in sorted(folder.glob("*.jsonl")):
        slug = path.name[: -len(".jsonl")]
        findings.extend(check_catalog_file(path, releases.get(slug) if releases else None))
    return findings


def is_catalog_path(path: Path) -> bool:
    return path.suffix == ".jsonl" or (path.is_dir() and (path / "releases.json").is_file())

