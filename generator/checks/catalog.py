"""CAT: the harvested catalog (data/catalog), checked as records are, as a whole: whatever is published has passed.

A catalog folder holds `releases.json`, `projects.yaml` and, for each project both name, one regular file
`<project>.jsonl`; a part missing, a project one of them lacks, or a project file that is a symbolic link is a
finding (CAT010), never a reason to skip a check. The other files are checked in
generator/checks/catalogparts.py. Each line is one entry: UTF-8 JSON (CAT001) with only plain characters and
valid against schema/catalog.schema.json (CAT002), with a unique id (CAT003) that is its project and template's
hash (CAT004), a portable (CAT005), specific (CAT006) pattern that finds its own template (CAT009), written
canonically and in id order (CAT007), and versions that are the project's harvested releases, in order (CAT008).
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .. import forked
from ..cachedir import cached_findings
from ..catalog.reader import MAX_LINE_BYTES, SLUG, Catalog, load_catalog
from ..findings import Finding, format_text, make
from .. import jsonline
from ..records.load import pointer_escape
from ..match.portable import analyse, prefilter_literal, shape_found, shape_literal, text_shape
from .catalogschema import SCHEMA_DIR
from .catalogparts import PROJECTS, RELEASES, check_links, check_projects, check_releases, plain_json, present, schema_findings
from .regex import MIN_LITERAL, compile_error, compile_pattern, text_too_broad, too_broad


def normalise(template: str) -> str:
    """A template with its runs of whitespace made one space: respacing a message does not make it another."""
    return " ".join(template.split())


def entry_id(project: str, template: str) -> str:
    """A catalog entry's stable id: the project and the first 16 hex of sha256(project NUL normalised template)."""
    digest = hashlib.sha256(f"{project}\0{normalise(template)}".encode("utf-8")).hexdigest()
    return f"{project}/{digest[:16]}"


CATALOG_SCHEMA_PATH = SCHEMA_DIR / "catalog.schema.json"


def _fill(template: str) -> str:
    return template.replace("{}", "x1")


def release_order(folder: Path) -> tuple[dict[str, list[str]], list[Finding]]:
    """Each project's releases in releases.json, oldest first ({} when it is missing or does not parse), and
    the file's findings."""
    order, findings, _ = check_releases(folder)
    return order or {}, findings


def check_catalog_file(path: Path, releases: list[str] | None) -> Iterator[Finding]:
    """Every finding in one <project>.jsonl; `releases` is the project's release order from releases.json.

    Without it (None) the versions cannot be checked: that is a finding (CAT010), not a skip."""
    if releases is None:
        yield make("CAT010", str(path), "", f"{_slug(path)}: releases.json lists no releases of this project (or there is no "
                   "releases.json), so its versions cannot be checked")
    yield from _check_lines(path, releases)


def _slug(path: Path) -> str:
    return path.name[: -len(".jsonl")]


def _read_lines(path: Path) -> Iterator[tuple[int, str | None, str]]:
    """(line number, text or None, why not) of each line: read one bounded line at a time and decoded alone, so
    that a line that is not UTF-8 or is too long is one finding, costs no more memory than a line may, and the
    others are still read. A symbolic link is not followed."""
    try:
        stream = os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb")
    except OSError as exc:
        yield 1, None, f"unreadable: {exc.strerror or exc} (a symbolic link is not read)"
        return
    with stream:
        n = 0
        while raw := stream.readline(MAX_LINE_BYTES + 1):
            n += 1
            if len(raw) > MAX_LINE_BYTES:
                while raw and not raw.endswith(b"\n"):  # the rest of the line, unread
                    raw = stream.readline(MAX_LINE_BYTES)
                yield n, None, f"longer than {MAX_LINE_BYTES} bytes"
                continue
            try:
                yield n, raw.decode("utf-8"), ""
            except UnicodeDecodeError as exc:
                yield n, None, f"not UTF-8 (byte {exc.start + 1})"


def _parse(n: int, line: str) -> tuple[dict | None, str]:
    try:
        entry = jsonline.read(line)
    except (ValueError, RecursionError) as exc:
        return None, f"line {n} is not JSON: {exc}"
    return (entry, "") if isinstance(entry, dict) else (None, f"line {n} is not a JSON object")


def schema_lines(path: Path, schema: str) -> Iterator[tuple[int, str, dict | None, str | list[Finding]]]:
    """(line number, text, object, problem) for each line of a JSON Lines file checked against `schema`: the
    object is None and the problem says why when the line is no JSON object (or cannot be read); else the problem
    is the schema's findings (empty when it accepts the line)."""
    for n, line, why in _read_lines(path):
        data, why = _parse(n, line) if line is not None else (None, f"line {n} is {why}")
        if data is None:
            yield n, line or "", None, why
            continue
        yield n, line, data, schema_findings(schema, str(path), data, lambda pointer: (n, 1), plain=plain_json(line))


def _check_lines(path: Path, releases: list[str] | None, split: bool = True) -> Iterator[Finding]:
    """Every line's findings, in line order. The patterns' checks (most of the time: each pattern is analysed for
    portability and speed) run after the other checks of the file, in two processes for a big file when `split`."""
    steps = list(_line_checks(path, releases))  # a finding, or a pattern to check there
    jobs = [step for step in steps if isinstance(step, tuple)]
    found = iter(_pattern_findings(path, jobs) if split else _patterns_of(path, jobs))
    for step in steps:
        if isinstance(step, tuple):
            yield from next(found)
        else:
            yield step


def _line_checks(path: Path, releases: list[str] | None) -> Iterator[Finding | tuple[dict, tuple[int, int]]]:
    slug = _slug(path)
    order = {v: i for i, v in enumerate(releases or [])}
    seen: dict[str, int] = {}
    previous_id = ""
    for n, line, entry, refused in schema_lines(path, "catalog.schema.json"):
        where = (n, 1)
        if entry is None:
            yield make("CAT001", str(path), "", refused, where)
            continue
        if refused:
            clean_id = isinstance(entry.get("id"), str) and not any(f.pointer.startswith("/id") for f in refused)
            label = entry["id"] if clean_id else f"line {n}"
            for finding in refused[:3]:
                yield make("CAT002", str(path), finding.pointer, f"{label}: {finding.message}", where)
            continue
        eid = entry["id"]
        if eid in seen:
            yield make("CAT003", str(path), "/id", f"{eid} is also on line {seen[eid]}", where)
            continue
        seen[eid] = n
        if entry["project"] != slug or eid != entry_id(slug, entry["template"]):
            yield make("CAT004", str(path), "/id", f"{eid}: expected {entry_id(slug, entry['template'])} (project {slug!r} and the template's hash)", where)
        if line != jsonline.canonical(entry) + "\n" or eid < previous_id:
            yield make("CAT007", str(path), "", f"{eid}: lines must be canonical JSON (keys sorted, compact, LF) in id order", where)
        previous_id = max(previous_id, eid)
        yield {key: entry[key] for key in ("id", "pattern", "template", "literal")}, where
        if releases is not None:
            yield from _check_versions(path, entry, order, where)


PARALLEL_PATTERNS = 1000  # from this many patterns in a file, two processes check them


def _pattern_findings(path: Path, jobs: list[tuple[dict, tuple[int, int]]]) -> list[list[Finding]]:
    """Each job's pattern findings, in the jobs' order; two processes share a big file's (generator.forked)."""
    if len(jobs) < PARALLEL_PATTERNS or not forked.available():
        return _patterns_of(path, jobs)
    half = (len(jobs) + 1) // 2
    rest = forked.start(lambda: _patterns_of(path, jobs[half:]))
    return _patterns_of(path, jobs[:half]) + rest()


def _patterns_of(path: Path, jobs: list[tuple[dict, tuple[int, int]]]) -> list[list[Finding]]:
    return [list(_check_pattern(path, entry, where)) for entry, where in jobs]


def _check_pattern(path: Path, entry: dict, where: tuple[int, int]) -> Iterator[Finding]:
    eid, pattern = entry["id"], entry["pattern"]
    shape = text_shape(pattern)
    if shape is not None and max(map(len, shape[0])) >= MIN_LITERAL:
        # text, text and a value, or a value between two texts (most of the catalog): portable and specific as it
        # stands, and found exactly where its texts are, so the checks below come to the same findings without a
        # parse or RE2
        broad = text_too_broad(shape)
        if broad:
            yield make("CAT006", str(path), "/pattern", f"{eid}: {broad}", where)
        if not _finds_template(lambda line: shape_found(shape, line), entry["template"]):
            yield _not_found(path, eid, where)
        yield from _check_literal(path, entry, shape_literal(shape), where)
        return
    analysis = analyse(pattern)
    problem = compile_error(pattern) if analysis.portable else None
    if not analysis.portable or problem:
        what = str(analysis.problems[0]) if analysis.problems else problem or "could not be checked"
        yield make("CAT005", str(path), "/pattern", f"{eid}: the pattern is not portable: {what}", where)
        return
    broad = too_broad(pattern, analysis.literals)
    if broad:
        yield make("CAT006", str(path), "/pattern", f"{eid}: {broad}", where)
    compiled = compile_pattern(pattern)
    if not _finds_template(lambda line: compiled.search(line) is not None, entry["template"]):
        yield _not_found(path, eid, where)
    yield from _check_literal(path, entry, prefilter_literal(analysis.literals), where)


def _check_literal(path: Path, entry: dict, literal: str, where: tuple[int, int]) -> Iterator[Finding]:
    """CAT013: the entry's `literal` is its pattern's prefilter literal (a line without it is never tried)."""
    if entry["literal"] != literal:
        yield make("CAT013", str(path), "/literal", f"{entry['id']}: the literal is {entry['literal'][:80]!r}, the pattern's is "
                   f"{literal[:80]!r}", where)


def _finds_template(found: Callable[[str], bool], template: str) -> bool:
    """Whether a pattern (`found`: whether it matches in a line) finds its own template, the holes filled with 'x1':
    the template's lines joined by spaces, or one of them alone."""
    return found(_fill(template).replace("\n", " ")) or any(found(_fill(part)) for part in template.split("\n"))


def _not_found(path: Path, eid: str, where: tuple[int, int]) -> Finding:
    return make("CAT009", str(path), "/pattern", f"{eid}: the pattern does not find the template itself (holes filled with 'x1')", where)


def _check_versions(path: Path, entry: dict, order: dict[str, int], where: tuple[int, int]) -> Iterator[Finding]:
    eid = entry["id"]
    versions = ([v for r in entry["releases"] for v in r] + [v for s in entry["sites"] for v in (s["from"], s["to"])]
                + [pair[0] for s in entry["sites"] for pair in s.get("lines", [])] + [entry["first"], entry["last"]])
    unknown = sorted({v for v in versions if v not in order})
    if unknown:
        yield make("CAT008", str(path), "/releases", f"{eid}: {', '.join(unknown)} not among the project's releases in releases.json", where)
        return
    flat = [order[v] for r in entry["releases"] for v in r]
    # a message raised from several files has a site for each, over ranges that may overlap: each runs forward
    backward = any(order[s["from"]] > order[s["to"]] for s in entry["sites"])
    if flat != sorted(flat) or backward or entry["first"] != entry["releases"][0][0] or entry["last"] != entry["releases"][-1][1]:
        yield make("CAT008", str(path), "/releases", f"{eid}: ranges must run oldest to newest (a site from its `from` to its `to`), "
                   "first/last must be the ranges' ends", where)
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
    """Findings for a whole catalog folder: its parts (CAT010), releases.json, projects.yaml, links.json and
    every line of every <project>.jsonl. An empty list means everything in it may be published."""
    releases, findings, where = check_releases(folder)
    configured, more = check_projects(folder)
    findings += more + check_links(folder)
    files = []
    for path in sorted(folder.glob("*.jsonl")):
        if path.is_symlink() or not path.is_file() or not SLUG.fullmatch(_slug(path)):
            findings.append(make("CAT010", str(path), "", f"{path.name} is not a project file (a regular file named by a "
                                 "project slug); nothing in it is read"))
        else:
            files.append(path)
    findings += _missing_parts(folder, [_slug(p) for p in files], releases, configured, where)
    from .catalogsymbols import check_symbols  # the symbol index beside the catalog (data/catalog/symbols)

    orders = {path: (releases or {}).get(_slug(path)) for path in files}
    if not forked.available() or len(files) < 2:
        for path in files:
            findings += _file_findings(path, orders[path], True)
        return findings + check_symbols(folder, releases, configured)
    # one process a core, each taking the next file when done with one, the biggest first (the symbol index's check
    # after the two biggest); each file's findings are then read in the files' order
    biggest = sorted(files, key=lambda p: (-p.stat().st_size, p.name))
    workers = min(os.cpu_count() or 1, 8)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        done = {path: pool.submit(_file_findings, path, orders[path], False) for path in biggest[:2]}
        symbols = pool.submit(check_symbols, folder, releases, configured)
        done.update({path: pool.submit(_file_findings, path, orders[path], False) for path in biggest[2:]})
        for path in files:
            findings += done[path].result()
        return findings + symbols.result()


def _file_findings(path: Path, order: list[str] | None, split: bool) -> list[Finding]:
    """One project file's findings, from the cache when the same code checked the same bytes; `split`: a big file's
    patterns are analysed in two processes."""
    return cached_findings("catalog-lines", path, json.dumps(order), lambda: _check_lines(path, order, split))


def _missing_parts(folder: Path, slugs: list[str], releases: dict[str, list[str]] | None, configured: set[str] | None,
                   where: Callable[[str], tuple[int, int]]) -> list[Finding]:
    """CAT010 for each project a part lacks: there is no releases.json or projects.yaml, or it does not name a
    project file's project (a part that is there but broken has its own finding), or releases.json names a
    project that has no file."""
    out = []
    for slug in slugs:
        for name, known in ((RELEASES, releases), (PROJECTS, configured)):
            missing = not present(folder / name)
            if not missing and (known is None or slug in known):
                continue
            why = f"there is no {name}" if missing else f"{name} does not name it"
            out.append(make("CAT010", str(folder / f"{slug}.jsonl"), "", f"{slug}: {why}, so this project file cannot be "
                            "checked whole"))
    for slug in sorted(set(releases or ()) - set(slugs)):
        out.append(make("CAT010", str(folder / RELEASES), f"/{pointer_escape(slug)}", f"{slug}: releases.json names it, but "
                        f"there is no {slug}.jsonl", where(f"/{pointer_escape(slug)}")))
    return out


def has_catalog(folder: Path) -> bool:
    """Whether `folder` holds any part of a catalog (then the whole of it is checked before anything is published)."""
    return folder.is_dir() and (present(folder / RELEASES) or present(folder / PROJECTS) or any(folder.glob("*.jsonl")))


def is_catalog_path(path: Path) -> bool:
    """A catalog file, or a folder holding any part of a catalog (a missing releases.json makes it no less one)."""
    return path.suffix == ".jsonl" or has_catalog(path)


class CatalogRefused(Exception):
    """A catalog with findings: no part of it is published. The message lists the first of them."""

    def __init__(self, folder: Path, findings: list[Finding], problems: list[str]):
        shown = format_text(findings[:20], 0).rsplit("\n", 2)[0] if findings else "\n".join(problems)
        count = len(findings) or len(problems)
        super().__init__(f"the catalog in {folder} does not pass `errdex validate {folder}` ({count} finding{'s' * (count != 1)}); "
                         f"no part of it is published (build with --no-catalog to leave it out):\n{shown}")


def checked_catalog(folder: Path) -> Catalog | None:
    """The catalog in `folder` for publishing: None when the folder holds no part of one; else read only once
    every check passed (load, check, publish only what was checked), CatalogRefused otherwise. The reader skips
    what it cannot use; should it skip anything the checks passed, nothing is published either."""
    if not has_catalog(folder):
        return None
    findings = check_catalog(folder)
    if findings:
        raise CatalogRefused(folder, findings, [])
    catalog = load_catalog(folder)
    if catalog.problem_count:
        raise CatalogRefused(folder, [], catalog.problems)
    return catalog
