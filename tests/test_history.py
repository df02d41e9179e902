"""validate --base REV: an id or alias that existed at REV may not disappear (ids are forever)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from generator.cli import main

MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"
ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env={**ENV, "HOME": str(repo), "PATH": "/usr/bin:/bin"})


def test_removed_records_and_aliases_are_findings(tmp_path, monkeypatch, capsys) -> None:
    root = tmp_path / "data/errors/demo"
    root.mkdir(parents=True)
    shutil.copy(MINIMAL, root / "minimal.yaml")
    # Three errors, not three copies of one (XRC007): each says something else.
    other = MINIMAL.read_text(encoding="utf-8").replace("id: demo/minimal", "id: demo/other").replace("repo:", "aliases: [legacy-one]\nrepo:", 1).replace("Failed to allocate", "Could not reserve")
    (root / "other.yaml").write_text(other, encoding="utf-8")
    third = MINIMAL.read_text(encoding="utf-8").replace("id: demo/minimal", "id: demo/third").replace("repo:", "aliases: [legacy-two]\nrepo:", 1).replace("Failed to allocate", "Unable to take")
    (root / "third.yaml").write_text(third, encoding="utf-8")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "base")
    monkeypatch.chdir(tmp_path)

    assert main(["validate", "--base", "HEAD"]) == 0
    (root / "other.yaml").unlink()  # deleted instead of retired
    (root / "third.yaml").write_text(third.replace("aliases: [legacy-two]\n", ""), encoding="utf-8")  # alias dropped
    capsys.readouterr()
    assert main(["validate", "--base", "HEAD"]) == 1
    out = capsys.readouterr().out
    assert "data/errors/demo/other.yaml:1:1: error[XRC005] /id: the record 'demo/other' existed at the base revision and is gone" in out
    assert "data/errors/demo/other.yaml:1:1: error[XRC005] /id: the alias 'legacy-one' of record 'demo/other' existed at the base revision and is gone" in out
    assert "data/errors/demo/third.yaml:2:1: error[XRC005] /aliases: the alias 'legacy-two' existed at the base revision and is gone" in out

    # Retiring instead of deleting keeps every name.
    (root / "other.yaml").write_text(other.replace("provenance:", "superseded_by: demo/minimal\nprovenance:"), encoding="utf-8")
    (root / "third.yaml").write_text(third, encoding="utf-8")
    assert main(["validate", "--base", "HEAD"]) == 0


def test_unknown_revision_is_a_usage_error(tmp_path, monkeypatch, capsys) -> None:
    _git(tmp_path, "init", "-q")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "--base", "no-such-rev"]) == 2
    assert main(["validate", "--base", "--output=x"]) == 2
