"""The stages wired together: load -> check -> model. Rendering and export take the models from here."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import check_across, check_each
from ..findings import Finding, fails
from ..records.load import DATA_ROOT, RawRecord, find_record_files, load_files
from ..records.model import Record


@dataclass
class Checked:
    """The outcome of loading and checking: raw records, every finding, and models when nothing failed."""

    raws: list[RawRecord]
    findings: list[Finding]
    strict: bool
    records: list[Record] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return fails(self.findings, self.strict)

    @property
    def file_count(self) -> int:
        return len({f.path for f in self.findings if f.code.startswith("YML")} | {r.path for r in self.raws})


# Below this many files one process is quicker than starting workers (486 records, cold: 2.5 s in one, 1.7 s in two).
PARALLEL_FROM = 200


def _rest_of_dataset(paths: list[Path] | None, root: Path | None, files: list[Path]) -> list[RawRecord]:
    """The records of the dataset under `root` that `paths` leave out, when every path lies inside it: a record
    checked on its own still has its references, id and examples checked against the others. Loaded, not checked."""
    base = Path(root or DATA_ROOT).resolve()
    if not paths or not base.is_dir() or not all(_inside(Path(p), base) for p in paths):
        return []
    chosen = {Path(f).resolve() for f in files}
    rest = [f for f in find_record_files([base], base)[0] if Path(f).resolve() not in chosen]
    return load_files(rest, base)[0] if rest else []


def _inside(path: Path, base: Path) -> bool:
    try:
        path.resolve().relative_to(base)
        return True
    except ValueError:
        return False


def _load_and_check_each(files: list[Path], root: Path | None, keep_text: bool = True) -> tuple[list[RawRecord], list[Finding]]:
    raws, findings = load_files(files, root)
    findings += check_each(raws)
    if not keep_text:  # a worker's records travel back to the parent: the text can be read again if needed
        for raw in raws:
            raw.text = ""
    return raws, findings


def check(paths: list[Path] | None = None, root: Path | None = None, strict: bool = False, models: bool = True) -> Checked:
    """Load and check every record under `paths` (default: data/errors); build models only if all passed.

    Large datasets are loaded and checked per record in one worker process per core; the checks across records
    run once over everything. The findings are the same either way. `models=False` skips building the models
    (validation alone does not need them)."""
    files, link_findings = find_record_files(paths or [root or DATA_ROOT], root)
    workers = min(os.cpu_count() or 1, 8)
    if len(files) >= PARALLEL_FROM and workers > 1:
        chunks = [files[i::workers] for i in range(workers)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            parts = list(pool.map(_load_and_check_each, chunks, [root] * workers, [False] * workers))
        raws = [raw for part, _ in parts for raw in part]
        findings = [f for _, part in parts for f in part]
    else:
        raws, findings = _load_and_check_each(files, root)
    raws.sort(key=lambda raw: raw.path)  # one order whichever way they were loaded: cross-record findings depend on it
    others = _rest_of_dataset(paths, root, files)
    if others:  # some records of a dataset: checked across all of it, findings kept for those asked about
        asked = {raw.path for raw in raws}
        findings += link_findings + [f for f in check_across(sorted(raws + others, key=lambda raw: raw.path)) if f.path in asked]
    else:
        findings += link_findings + check_across(raws)
    result = Checked(raws, sorted(findings), strict)
    if models and not result.failed:
        result.records = sorted((Record.model_validate(raw.data) for raw in raws), key=lambda r: r.id)
    return result
