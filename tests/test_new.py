"""errdex new: a commented template that says what is missing until it is filled in."""

from __future__ import annotations

import json
import re
from pathlib import Path

from generator.cli import main
from generator.records.new import TEMPLATE

SCHEMA = json.loads((Path(__file__).parent.parent / "schema/error.schema.json").read_text(encoding="utf-8"))
TOOL_WRITTEN = {"origin", "zh_fingerprints"}  # written by `errdex import` and `errdex mark-translated`


def test_new_then_validate_lists_missing_then_filled_passes(tmp_path, capsys) -> None:
    root = tmp_path / "data/errors"
    assert main(["new", "vllm/example-error", "--root", str(root)]) == 0
    path = root / "vllm/example-error.yaml"
    assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=../../../schema/error.schema.json\n")
    capsys.readouterr()
    assert main(["validate", "--root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    missing = re.findall(r"error\[SCH002\] /(\w+): missing required key", out)
    assert sorted(missing) == ["category", "domain", "error", "explanation", "provenance", "repo", "solutions"]
    # Filling in: uncomment the examples (all but the one that retires a record).
    lines = [line[3:] if line.startswith("#: ") and "superseded_by" not in line else line
             for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["validate", "--strict", "--root", str(root), str(root)]) == 0, capsys.readouterr().out


def test_new_refuses_to_overwrite_and_bad_ids(tmp_path, capsys) -> None:
    root = tmp_path / "d"
    assert main(["new", "a/b", "--root", str(root)]) == 0
    (root / "a/b.yaml").write_text("id: a/b\n", encoding="utf-8")
    assert main(["new", "a/b", "--root", str(root)]) == 1
    assert (root / "a/b.yaml").read_text(encoding="utf-8") == "id: a/b\n"
    assert main(["new", "../escape", "--root", str(root)]) == 1
    assert main(["new", "Upper/Case", "--root", str(root)]) == 1
    assert "is not a valid id" in capsys.readouterr().err


def _properties(schema: dict, node: dict, prefix: str = "") -> set[str]:
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    if node.get("type") == "array" and "items" in node:
        return _properties(schema, node["items"], prefix)
    names = set()
    for name, child in node.get("properties", {}).items():
        if name in TOOL_WRITTEN:
            continue
        names.add(f"{prefix}{name}")
        names |= _properties(schema, child, f"{prefix}{name}.")
    return names


def test_template_names_every_key_of_the_schema() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    for dotted in _properties(SCHEMA, SCHEMA):
        key = dotted.split(".")[-1]
        assert re.search(rf"^(#: )?\s*(- )?{key}:", text, re.M), f"the template does not show {dotted}"


def test_new_refuses_an_id_that_is_an_alias(tmp_path, capsys) -> None:
    from generator.cli import main

    root = tmp_path / "data/errors"
    (root / "demo").mkdir(parents=True)
    text = (Path(__file__).parent / "fixtures/valid/demo/minimal.yaml").read_text(encoding="utf-8")
    (root / "demo/minimal.yaml").write_text(text.replace("tags: [kv-cache]", "aliases: [demo/old-name]\ntags: [kv-cache]"), encoding="utf-8")
    assert main(["new", "demo/old-name", "--root", str(root)]) == 1
    assert "already taken: it is an alias of 'demo/minimal'" in capsys.readouterr().err
    assert not (root / "demo/old-name.yaml").exists()


def test_new_from_a_catalog_entry_is_prefilled(tmp_path, capsys):
    """errdex new --from-catalog: the project, message, pattern and exception come from the entry, with a note
    naming its raise site and releases; the rest is the usual template, and validate says what is missing."""
    import shutil

    import yaml

    from generator.cli import main

    root = tmp_path / "data" / "errors"
    root.mkdir(parents=True)
    shutil.copytree(Path(__file__).parent / "fixtures" / "catalog", tmp_path / "data" / "catalog")
    assert main(["new", "demo/scheduler-queue-full", "--root", str(root), "--from-catalog", "demo/6c82ce52ae657a8f"]) == 0
    text = (root / "demo" / "scheduler-queue-full.yaml").read_text(encoding="utf-8")
    assert "# Started from the catalog entry demo/6c82ce52ae657a8f: raised at servekit/sched.py:88 in demo 0.3.0; releases that raise it: 0.2.0 to 0.3.0." in text
    data = yaml.safe_load(text)
    assert data["repo"] == "example-org/servekit"
    pattern = next(e["pattern"] for e in map(json.loads, (tmp_path / "data/catalog/demo.jsonl").read_text(encoding="utf-8").splitlines())
                   if e["id"] == "demo/6c82ce52ae657a8f")
    assert data["error"] == {"message": "Scheduler queue is full ({} waiting)", "regex": pattern,
                             "exception_class": "RuntimeError", "type": "exception", "severity": "error"}
    capsys.readouterr()
    assert main(["validate", "--root", str(root), str(root)]) == 1
    out = capsys.readouterr().out
    assert "category" in out and "/error/regex" not in out  # the prefilled pattern passes the pattern checks
    assert main(["new", "demo/other", "--root", str(root), "--from-catalog", "demo/nope"]) == 1
    assert "the catalog has no entry 'demo/nope'" in capsys.readouterr().err
