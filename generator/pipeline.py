"""The stages wired together: load -> check -> model. Rendering and export take the models from here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .checks import run_checks
from .findings import Finding, fails
from .load import DATA_ROOT, RawRecord, load_records
from .model import Record


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


def check(paths: list[Path] | None = None, root: Path | None = None, strict: bool = False) -> Checked:
    """Load and check every record under `paths` (default: data/errors); build models only if all passed."""
    raws, findings = load_records(paths or [root or DATA_ROOT], root)
    findings += run_checks(raws)
    result = Checked(raws, sorted(findings), strict)
    if not result.failed:
        result.records = sorted((Record.model_validate(raw.data) for raw in raws), key=lambda r: r.id)
    return result
