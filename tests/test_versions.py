"""What a record says of a release agrees with the catalog (generator/checks/versions.py, `errdex validate`):
VER001 when a release said to raise the message raises none of the record's catalog messages, VER002 when a release
said to no longer raise it (status `fixed`, or "removed in X" in the notes) still does."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml

from generator.checks.pipeline import check
from generator.checks.versions import version_findings
from generator.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
ENTRY = "demo/6c82ce52ae657a8f"  # "Scheduler queue is full ({} waiting)": raised in servekit 0.2.0 to 0.3.0


def _setup(tmp_path: Path, versions: list[dict]) -> tuple[Path, Path]:
    catalog = tmp_path / "data" / "catalog"
    shutil.copytree(FIXTURES / "catalog", catalog, ignore=shutil.ignore_patterns("invalid", "valid"))
    (catalog / "links.json").write_text(json.dumps({"demo/minimal": [ENTRY]}), encoding="utf-8")
    record = yaml.safe_load((FIXTURES / "valid" / "demo" / "minimal.yaml").read_text(encoding="utf-8"))
    record["versions"] = versions
    errors = tmp_path / "data" / "errors" / "demo"
    errors.mkdir(parents=True)
    (errors / "minimal.yaml").write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return tmp_path / "data" / "errors", catalog


def _findings(tmp_path: Path, versions: list[dict]) -> list[tuple[str, str]]:
    errors, catalog = _setup(tmp_path, versions)
    result = check([errors], errors, models=False)
    assert not result.findings, result.findings
    return [(f.code, f.pointer) for f in version_findings(result.raws, catalog)]


def test_each_claim_is_held_to_the_releases_that_raise_the_message(tmp_path):
    got = _findings(tmp_path, [
        {"version": "servekit 0.1.0", "status": "active"},   # 0.1.0 does not raise it: VER001
        {"version": "servekit 0.2.0", "status": "active"},   # it does
        {"version": "servekit v0.3.0", "status": "fixed"},   # 0.3.0 still raises it: VER002 ("v" either way)
        {"version": "servekit 0.1.0", "status": "changed"},  # reworded there: nothing to hold it to
        {"version": "servekit 0.2.0", "status": "changed", "behavior_change": "Reworded; removed in 0.3.0.",
         "behavior_change_zh": "改了措辞。"},  # VER002 (the English note's claim)
        {"version": "servekit 0.9.0", "status": "active"},   # not harvested: not checked
        {"version": "PyTorch 2.6.0", "status": "active"},    # not a catalog project: not checked
    ])
    assert got == [("VER001", "/versions/0/version"), ("VER002", "/versions/2/version"),
                   ("VER002", "/versions/4/behavior_change")]


def test_no_links_no_findings_and_validate_reports_them(tmp_path, capsys, monkeypatch):
    assert _findings(tmp_path / "a", [{"version": "servekit 0.3.0", "status": "fixed"}]) == [("VER002", "/versions/0/version")]
    errors, catalog = _setup(tmp_path / "b", [{"version": "servekit 0.3.0", "status": "fixed"}])
    monkeypatch.chdir(tmp_path / "b")
    assert main(["validate"]) == 1  # VER002 is an error
    out = capsys.readouterr().out
    assert "VER002" in out and "minimal.yaml" in out
    (catalog / "links.json").unlink()
    assert main(["validate"]) == 0


def test_a_release_the_record_is_verified_at_outweighs_the_catalogs_silence(tmp_path):
    """The record's snippet is pinned at servekit 0.1.0, a release the catalog has none of its messages in: the
    catalog missed the message, and cannot say the other releases lack it either; a removal it contradicts still is."""
    errors, catalog = _setup(tmp_path, [{"version": "servekit 0.1.0", "status": "active"},
                                        {"version": "servekit 0.3.0", "status": "fixed"}])
    path = errors / "demo" / "minimal.yaml"
    record = yaml.safe_load(path.read_text(encoding="utf-8"))
    record["source"]["release"] = {"version": "0.1.0", "package": "servekit", "tag": "v0.1.0", "artifact": "servekit-0.1.0.tar.gz",
                                   "sha256": "0" * 64}
    path.write_text(yaml.safe_dump(record, allow_unicode=True, sort_keys=False), encoding="utf-8")
    result = check([errors], errors, models=False)
    assert [(f.code, f.pointer) for f in version_findings(result.raws, catalog)] == [("VER002", "/versions/1/version")]
