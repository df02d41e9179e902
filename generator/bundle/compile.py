"""Making a knowledge bundle (generator.bundle): the records checked, the catalog read, the matcher's tables and
Hyperscan database compiled, everything written as the bundle's sections."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import IO, Any

from . import _ROW, SITE_SHARDS, _blocked, _compact, _shard, data_hash, encode, lines_of


def compile_sections(records: list, catalog: Any, site_url: str | None) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The sections of a bundle (name -> bytes) and its summary, from checked records and a loaded catalog."""
    from ..catalog.query import statement_head
    from ..api.export import api_files
    from ..match.prefilter import compile_tables, hyperscan_available, hyperscan_database
    from ..match.index import patterns_from_index
    from .apidata import FILES, MANIFEST, MATCH, NDJSON, document_lines, record_id
    from .knowledge import catalog_pattern

    from .. import forked

    sections: dict[str, bytes] = {}
    api = api_files(records)
    for name in (MANIFEST, *FILES):
        sections[f"api/{name}"] = api[name]
    sections["api/ids"] = _compact([record_id(line) for line in document_lines(api[NDJSON])])
    patterns = patterns_from_index(json.loads(api[MATCH]))
    n_records = len(patterns)
    projects: dict[str, Any] = {}
    sites: dict[int, dict[str, list[list[Any]]]] = {}
    patterns += [catalog_pattern(slug, entry.data) for slug, project in sorted(catalog.projects.items()) for entry in project.entries]
    tables = compile_tables(patterns)
    database = None  # Hyperscan compiles its database (seconds, one core) in a second process while this one writes the rest
    if hyperscan_available() and tables.keys:
        import hyperscan

        work = lambda: hyperscan.dumpb(hyperscan_database(tables.keys))  # noqa: E731
        database = forked.start(work) if forked.available() else work
    for slug, project in sorted(catalog.projects.items()):
        lines, ids = [], []
        for entry in project.entries:  # by id (the reader sorts them)
            lines.append(_compact(entry.data))
            ids.append(entry.id)
            for s in entry.sites:
                head = statement_head(s.statement)
                for first, last, line in s.spans():
                    key = f"{s.path.rsplit('/', 1)[-1]}:{line}"
                    sites.setdefault(_shard(key), {}).setdefault(key, []).append(
                        [slug, entry.id, s.path, first, last, head])
        sections[f"catalog/{slug}/entries"], blocks = _blocked(lines)
        sections[f"catalog/{slug}/ids"] = _compact({"ids": ids, "blocks": blocks})
        projects[slug] = {"releases": project.releases, "package": project.package, "repository": project.repository,
                          "source_url": project.source_url, "entries": len(ids)}
    shards = [_compact({key: sorted(items, key=lambda i: (i[1], i[2], i[3])) for key, items in sites.get(n, {}).items()})
              for n in range(SITE_SHARDS)]  # every shard, empty ones too, in shard order, one a block
    sections["sites"], starts = _blocked(shards, per_block=1)
    sections["sites/starts"] = _compact(starts)
    sections["catalog"] = _compact({"projects": projects, "problems": catalog.problems, "problem_count": catalog.problem_count,
                                    "links": catalog.links})
    for name, value in tables.as_json().items():  # a field a section, a value a line: a reader decodes what it uses
        sections[f"match/{name}"], sections[f"match/{name}/at"] = lines_of(value)
    rows = [_compact([getattr(p, name) if name != "literals" or p.literals is None else list(p.literals) for name in _ROW])
            for p in patterns]
    sections["match/rows"], blocks = _blocked(rows)
    sections["match/blocks"] = _compact(blocks)
    if database is not None:
        sections["match/hyperscan"] = database()
    summary = {"records": n_records, "patterns": len(patterns), "catalog_entries": len(patterns) - n_records,
               "site_url": site_url}
    return sections, summary


def make(records_dir: Path, catalog_dir: Path, settings: dict[str, str], log: IO[str], digest: str | None = None) -> bytes | str:
    """The bundle of the records in `records_dir` and the catalog in `catalog_dir`, or why there is none (the
    records' findings are written to `log`). The records are checked first: a bundle holds only checked records."""
    from ..catalog.reader import load_catalog
    from ..findings import FORMATTERS
    from ..checks.pipeline import check

    digest = digest or data_hash(records_dir, catalog_dir, settings)  # `digest`: the caller has just hashed the data
    result = check([Path(records_dir)], Path(records_dir))
    if result.failed:
        log.write(FORMATTERS["text"](result.findings, result.file_count))
        return f"the records in {records_dir} do not pass validation; fix them (errdex validate)"
    catalog = load_catalog(Path(catalog_dir))
    sections, summary = compile_sections(result.records, catalog, settings.get("site_url"))
    summary["repo_url"] = settings.get("repo_url")
    from ..catalog.symbols import header_meta

    summary["symbols"] = {}
    for path in sorted((Path(catalog_dir) / "symbols").glob("*.jsonl")):  # the symbol index, for drift answers
        sections[f"symbols/{path.stem}"] = zlib.compress(path.read_bytes(), 6)
        summary["symbols"][path.stem] = header_meta(path)
    return encode(sections, summary, digest)
