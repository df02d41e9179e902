"""What errdex writes is safe whatever the data holds: terminal output shows every control, invisible and
direction-changing character as an escape; every YAML file is written by the emitter, so a value cannot add
keys; an import never deletes or changes a curated record's content."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator import chars
from generator.cli import main
from generator.records.load import load_file, pointer_escape

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent.parent / "data/errors"


def _class_points() -> list[str]:
    """Every code point of the unsafe and hidden classes (generator/chars.py) but tab and line feed, a few lone
    surrogates standing for their 2,048, and the other invisible line breakers and direction marks."""
    points = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF
              and (chars.UNSAFE.match(chr(c)) or chars.HIDDEN.match(chr(c)))]
    return points + ["\ud800", "\udbff", "\udc00", "\udfff", "\u2028", "\u2029", "\u061c", "\u180e", "\U000e0001"]


POINTS = _class_points()
UTF8_POINTS = [c for c in POINTS if not 0xD800 <= ord(c) <= 0xDFFF]  # what a log file or a file name can hold
# The attacks themselves: clear the screen, plant a hyperlink, ring the bell, a C1 CSI, overwrite the line.
SEQUENCES = ["\x1b[2J\x1b[H", "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\", "\x07", "\x9b31m", "\x08\x08\x08ok\rOK", "\u202eevil"]


def _raw(text: str) -> set[str]:
    """The class code points `text` holds raw (a line feed is output's own; the data's are tested apart)."""
    return set(text) & set(POINTS)


def _shown(char: str) -> str:
    """The visible escape a terminal shows for a code point (JSON's `\\u` form, so JSON output stays JSON)."""
    code = ord(char)
    if code > 0xFFFF:
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


# --- terminal output: `errdex match` -----------------------------------------------------------------------

def _index_and_log(tmp_path: Path, points: list[str]) -> tuple[Path, Path]:
    """A match.json whose every text holds one code point (or attack), and a log with one matching line each,
    the code point in the line and in what the pattern captures."""
    patterns, lines = [], []
    for i, c in enumerate(points):
        patterns.append({
            "id": f"demo/x{c}y", "regex": f"Boom {i:04d} marker (.+) end", "message": f"Boom {{}} {c}msg",
            "title": f"T{c}itle\nFORGED line\r{c}", "html": f"https://errdex.example/{c}]8;;https://evil.example{c}\\",
            "exception_class": f"Err{c}" if c in UTF8_POINTS or len(c) > 1 else "Err", "superseded_by": f"demo/s{c}",
        })
        if c in UTF8_POINTS or len(c) > 1:
            lines.append(f"Err{c}: Boom {i:04d} marker {c}v{c}\t end\n")
        else:  # a lone surrogate has no UTF-8 form: the log holds a stand-in, the index the surrogate
            lines.append(f"Err: Boom {i:04d} marker v end\n")
    index = tmp_path / "match.json"
    index.write_text(json.dumps({"patterns": patterns}), encoding="utf-8")
    log = tmp_path / "server.log"
    log.write_text("".join(lines), encoding="utf-8")
    return index, log


@pytest.mark.parametrize("points", [POINTS, SEQUENCES], ids=["every-class-code-point", "attack-sequences"])
def test_match_text_output_escapes_every_control_and_hidden_character(tmp_path, capsys, points) -> None:
    index, log = _index_and_log(tmp_path, points)
    assert main(["match", str(log), "--index", str(index), "--top", "100000"]) == 0
    got = capsys.readouterr()
    assert got.out.count("\n   page: ") == len(points)  # every pattern was shown
    leaked = _raw(got.out + got.err)
    assert not leaked, sorted(f"U+{ord(c):04X}" for c in leaked)
    assert not re.search(r"^FORGED", got.out, re.M), "a newline in a title started a line of its own"
    assert "\\u000a" in got.out and "\\u000d" in got.out and "\\u0009" in got.out
    for c in {c for p in points for c in p} & set(POINTS):
        assert _shown(c) in got.out, f"U+{ord(c):04X} is not shown as an escape"


def test_match_json_output_escapes_them_and_still_reads_back(tmp_path, capsys) -> None:
    index, log = _index_and_log(tmp_path, POINTS)
    assert main(["match", str(log), "--index", str(index), "--top", "100000", "--format", "json"]) == 0
    out = capsys.readouterr().out
    leaked = _raw(out)
    assert not leaked, sorted(f"U+{ord(c):04X}" for c in leaked)
    body = json.loads(out)
    titles = {r["title"] for r in body["results"]}
    assert titles == {f"T{c}itle\nFORGED line\r{c}" for c in POINTS}  # escaped, not changed


def test_a_file_name_is_escaped_too(tmp_path, capsys) -> None:
    index, _ = _index_and_log(tmp_path, ["x"])
    log = tmp_path / "log\x1b[2J\x07\u202e\x9b.txt"
    log.write_text("nothing to see\n", encoding="utf-8")
    assert main(["match", str(log), "--index", str(index)]) == 1
    assert main(["match", str(tmp_path / "gone\x1b]8;;x\x1b\\.txt"), "--index", str(index)]) == 2
    got = capsys.readouterr()
    assert not _raw(got.out + got.err)
    assert "log\\u001b[2J\\u0007\\u202e\\u009b.txt" in got.out


def _hostile_catalog(tmp_path: Path, points: list[str]) -> tuple[Path, Path]:
    """The fixture dataset and catalog, with one more catalog entry per code point: in its exception, template,
    pattern, function, path and statement, and in the name of a release that raises it."""
    data = tmp_path / "data" / "errors"
    shutil.copytree(FIXTURES / "dataset", data)
    catalog = tmp_path / "data" / "catalog"
    shutil.copytree(FIXTURES / "catalog", catalog, ignore=shutil.ignore_patterns("valid", "invalid"))
    releases = json.loads((catalog / "releases.json").read_text(encoding="utf-8"))
    bad_release = "0.4.0\x1b[2J\u202e\x9b"
    releases["demo"].append({"artifact": "servekit-0.4.0.tar.gz", "sha256": "0" * 64, "source": "pypi", "version": bad_release})
    (catalog / "releases.json").write_text(json.dumps(releases), encoding="utf-8")
    entries, lines = [], []
    for i, c in enumerate(points):
        shown = c if c in UTF8_POINTS else ""  # a lone surrogate cannot be matched: it stays in the path and statement
        template = f"Queue {i:04d} {shown}jammed at {{}}"
        entries.append({
            "exception": f"Jam{shown}Error", "first": "0.3.0", "function": f"f{c}", "id": f"demo/{i:016x}", "kind": "raise",
            "last": bad_release, "level": None, "literal": f"Queue {i:04d} ", "pattern": f"Queue {i:04d} [^ ]*jammed at ([^ ]+)",
            "project": "demo", "releases": [["0.3.0", bad_release]], "specificity": 20, "template": template, "tier": "user",
            "sites": [{"from": "0.3.0", "to": bad_release, "line": 7, "path": f"servekit/{c}x.py", "statement": f"raise Jam(f'{c}')"}],
        })
        lines.append(f"Jam{shown}Error: Queue {i:04d} {shown}jammed at {shown}v\n")
    with (catalog / "demo.jsonl").open("a", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(e) + "\n" for e in entries))
    log = tmp_path / "server.log"
    log.write_text("".join(lines) + '  File "/x/servekit/\x1bx.py", line 7, in f\x1b\n', encoding="utf-8")
    return data, log


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_match_catalog_output_escapes_catalog_text(tmp_path, capsys, fmt) -> None:
    data, log = _hostile_catalog(tmp_path, POINTS)
    assert main(["match", str(log), "--catalog", "--data", str(data), "--top", "100000", "--format", fmt]) == 0
    got = capsys.readouterr()
    leaked = _raw(got.out + got.err)
    assert not leaked, sorted(f"U+{ord(c):04X}" for c in leaked)
    if fmt == "json":
        body = json.loads(got.out)
        assert sum(r["type"] == "catalog" for r in body["results"]) == len(POINTS)
    else:
        assert got.out.count("(catalog entry, score") == len(POINTS)
        assert "0.4.0\\u001b[2J\\u202e\\u009b" in got.out  # a hostile release name, shown escaped


# --- YAML we write: `errdex new --from-catalog`, `mark-translated` ----------------------------------------

# Values that would add keys, lists, documents or tags if written unquoted, or change type if written plain.
HOSTILE_VALUES = [
    "x\nofficial_docs:\n  url: https://evil.example", "x\naliases: [vllm/other]", "key: value", "text # comment",
    "- item", "'single'", '"double"', "{a: b}", "[a, b]", "&anchor x", "*alias", "!!python/object/apply:os.system ['id']",
    "!custom x", "---", "x\n---\nid: other/record", "...", "a\tb", "a\rb", "a\r\nb", "|", "> folded", "%YAML 1.1", "@at",
    "`tick`", " leading", "trailing ", "true", "null", "~", "0.10", "0x1F", "2024-01-01", "a\u2028b", "a\x85b", "a\x1bb",
    "\u202eevil", "back\\slash \\n", "#!/bin/sh", "? key", ": value",
]


def _catalog_with(tmp_path: Path, value: str) -> tuple[Path, str]:
    """A catalog whose one entry has `value` in every field `new --from-catalog` reads: exception, template,
    pattern, function, site path and statement, the release that raises it, its id, and the project's repository."""
    catalog = tmp_path / "data" / "catalog"
    catalog.mkdir(parents=True)
    (catalog / "projects.yaml").write_text(json.dumps({"demo": {"package": "servekit", "repository": value}}), encoding="utf-8")
    (catalog / "releases.json").write_text(json.dumps({"demo": [{"version": "0.1.0"}, {"version": value}]}), encoding="utf-8")
    entry_id = f"demo/{value}"
    entry = {"id": entry_id, "project": "demo", "exception": value, "template": value, "pattern": value, "function": value,
             "kind": "raise", "tier": "user", "releases": [["0.1.0", value]],
             "sites": [{"from": "0.1.0", "to": value, "path": value, "line": 3, "statement": value}]}
    (catalog / "demo.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    return tmp_path / "data" / "errors", entry_id


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_new_from_catalog_writes_each_value_as_one_scalar(tmp_path, capsys, value) -> None:
    root, entry_id = _catalog_with(tmp_path, value)
    assert main(["new", "demo/started-here", "--root", str(root), "--from-catalog", entry_id]) == 0, capsys.readouterr().err
    path = root / "demo/started-here.yaml"
    raw, findings = load_file(path, root=root)
    assert not findings and raw is not None, findings
    assert list(raw.data) == ["id", "repo", "error"]
    assert raw.data["id"] == "demo/started-here" and raw.data["repo"] == value
    assert raw.data["error"] == {"message": value, "regex": value, "exception_class": value, "type": "exception", "severity": "error"}
    note = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("# Started from the catalog entry")]
    assert len(note) == 1 and note[0].endswith(".")  # the note stays one comment line, whatever the names hold
    assert not _raw(capsys.readouterr().out)


def test_new_from_catalog_writes_plain_values_as_before(tmp_path, capsys) -> None:
    root = tmp_path / "data" / "errors"
    shutil.copytree(FIXTURES / "catalog", tmp_path / "data" / "catalog")
    assert main(["new", "demo/scheduler-queue-full", "--root", str(root), "--from-catalog", "demo/6c82ce52ae657a8f"]) == 0
    text = (root / "demo/scheduler-queue-full.yaml").read_text(encoding="utf-8")
    assert "\nrepo: example-org/servekit\n" in text and "\n  exception_class: RuntimeError\n" in text
    assert "\nerror:\n  message: 'Scheduler queue is full ({} waiting)'\n" in text
    entry = next(e for e in map(json.loads, (FIXTURES / "catalog/demo.jsonl").read_text(encoding="utf-8").splitlines())
                 if e["id"] == "demo/6c82ce52ae657a8f")
    assert f"\n  regex: '{entry['pattern']}'\n" in text  # backslashes as they are, in single quotes


@pytest.mark.parametrize("key", HOSTILE_VALUES)
def test_mark_translated_writes_every_pointer_as_one_key(tmp_path, capsys, key) -> None:
    """A pointer holds the keys of a translated mapping (os_specific): the marks are written by the emitter."""
    import yaml

    from generator.checks.marks import fingerprints

    root = tmp_path / "errors"
    (root / "demo").mkdir(parents=True)
    data = yaml.safe_load((FIXTURES / "valid/demo/minimal.yaml").read_text(encoding="utf-8"))
    data["os_specific"], data["os_specific_zh"] = {key: "On this system.", "linux": "Linux."}, {key: "在此系统上。", "linux": "Linux。"}
    path = root / "demo/minimal.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    before, _ = load_file(path, root=root)
    assert main(["mark-translated", "--root", str(root), str(path)]) == 0, capsys.readouterr().err
    after, findings = load_file(path, root=root)
    assert not findings and after is not None, findings
    marks = after.data.pop("zh_fingerprints")
    assert after.data == before.data
    assert marks == fingerprints(before.data) and len([p for p in marks if p.startswith("/os_specific/")]) == 2


# --- import never replaces curated work --------------------------------------------------------------------

SHAPES = FIXTURES / "import"
# Real curated records: one that came from an ErrLookup import and was then rewritten by hand (its origin names
# the entry), one from a deadends import, and one written here from the start.
CURATED = ["vllm/hf3fs-allocation-failed", "vllm/block-manager-out-of-memory", "vllm/engine-core-encountered-fatal-error"]


def _curated_root(tmp_path: Path, record_id: str) -> Path:
    root = tmp_path / "errors"
    (root / record_id).parent.mkdir(parents=True)
    shutil.copyfile(DATA / f"{record_id}.yaml", root / f"{record_id}.yaml")
    return root


def _errlookup(record_id: str, legacy: str, message: str, pattern: str) -> dict:
    """An ErrLookup entry (the fixture's shape) whose repository and slug give `record_id`."""
    entry = json.loads((SHAPES / "errlookup-api.json").read_text(encoding="utf-8"))
    record = entry["record"]
    project, slug = record_id.split("/", 1)
    record.update(id=legacy, repo="vllm-project/vllm", slug=slug, errorMessage=message, messagePattern=pattern,
                  documentation="Their short explanation.", solutions=["Their one solution."])
    record["githubUrl"] = f"https://github.com/vllm-project/vllm/blob/{record['analyzedSha']}/{record['filePath']}#L2-L4"
    return entry


def _deadends(record_id: str, signature: str, regex: str) -> dict:
    """A deadends.dev canon whose runtime and slug give `record_id`."""
    entry = json.loads((SHAPES / "deadends-canon.json").read_text(encoding="utf-8"))
    slug = record_id.split("/", 1)[1]
    entry.update(id=f"llm/vllm-{slug}/vllm-linux", url=f"https://deadends.example/llm/vllm-{slug}/vllm-linux")
    entry["error"].update(signature=signature, regex=regex)
    entry["environment"]["runtime"]["name"] = "vllm"
    entry["transition_graph"]["leads_to"] = []
    return entry


def _kept(before, after, where: str = "") -> None:
    """Every value of `before` is in `after` as it was: a mapping may gain keys, a list items at its end."""
    if isinstance(before, dict):
        assert isinstance(after, dict), f"{where or '/'} is no longer a mapping"
        for key, value in before.items():
            assert key in after, f"{where}/{key} was removed"
            _kept(value, after[key], f"{where}/{key}")
    elif isinstance(before, list):
        assert isinstance(after, list) and after[: len(before)] == before, f"{where} lost or changed items"
    else:
        assert type(after) is type(before) and after == before, f"{where} changed: {before!r} -> {after!r}"


def _additions_are_marked(before: dict, after: dict, legacy: str) -> None:
    """What a merge adds says where it came from: examples are `constructed`, an alias is the source's id."""
    examples = (after.get("error") or {}).get("examples") or []
    for example in examples[len((before.get("error") or {}).get("examples") or []):]:
        assert example.get("constructed") is True, example
    assert set(after.get("aliases") or []) - set(before.get("aliases") or []) <= {legacy}


def _collisions(record_id: str) -> list[tuple[str, dict]]:
    """Foreign entries whose id is the curated record's: the entry its origin names (a re-import), another
    ErrLookup entry of another error with the same slug, a deadends canon of another error with the same slug,
    and a deadends canon of the same error (its signature is one of our examples)."""
    ours = json.loads(json.dumps(load_file(DATA / f"{record_id}.yaml", root=DATA)[0].data))
    origin = (ours.get("provenance") or {}).get("origin") or {}
    out = [
        ("errlookup-other-error", _errlookup(record_id, "00000000000000ff", "Completely unrelated failure {}", "Completely unrelated failure (.+)")),
        ("deadends-other-error", _deadends(record_id, "RuntimeError: Completely unrelated failure 7", "Completely unrelated failure (\\d+)")),
        ("deadends-same-error", _deadends(record_id, ours["error"]["examples"][0]["text"], "Completely unrelated failure (\\d+)")),
    ]
    if origin.get("dataset") == "errlookup":
        out.append(("errlookup-reimport", _errlookup(record_id, origin["id"], "Their wording of it {}", "Their wording of it (.+)")))
    return out


@pytest.mark.parametrize("record_id", CURATED)
@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_an_import_never_removes_or_changes_curated_content(tmp_path, capsys, record_id, force) -> None:
    for name, entry in _collisions(record_id):
        work = tmp_path / name
        root = _curated_root(work, record_id)
        path = root / f"{record_id}.yaml"
        original = path.read_bytes()
        before = load_file(path, root=root)[0].data
        source = work / "entry.json"
        source.write_text(json.dumps(entry), encoding="utf-8")
        code = main(["import", "--root", str(root), *(["--force"] if force else []), str(source)])
        got = capsys.readouterr()
        raw, findings = load_file(path, root=root)
        assert not findings, (name, findings)
        _kept(before, raw.data)
        legacy = (entry.get("record") or entry)["id"]
        _additions_are_marked(before, raw.data, legacy)
        if path.read_bytes() == original:  # refused, nothing new, or written under another id: said so
            said = (code == 1 and "errdex import:" in got.err) or f"merged into {record_id}" in got.out or re.search(r"^wrote ", got.out, re.M) is not None
            assert said, (name, got.out, got.err)
        else:
            assert f"merged into {record_id}" in got.out, (name, got.out)


def test_a_merge_never_drops_a_comment(tmp_path, capsys) -> None:
    """A merge writes the record anew from its data; a file with a comment of its own is left for a person."""
    record_id = "vllm/engine-core-encountered-fatal-error"
    root = _curated_root(tmp_path, record_id)
    path = root / f"{record_id}.yaml"
    text = path.read_text(encoding="utf-8").replace("\nrepo: ", "\n# Reviewed against vLLM 0.9 by hand.\nrepo: ", 1)
    path.write_text(text, encoding="utf-8")
    name, entry = next(c for c in _collisions(record_id) if c[0] == "deadends-same-error")
    source = tmp_path / "entry.json"
    source.write_text(json.dumps(entry), encoding="utf-8")
    for extra in ([], ["--force"]):
        assert main(["import", "--root", str(root), *extra, str(source)]) == 1
        assert "holds comments, which a merge would not keep" in capsys.readouterr().err
        assert path.read_text(encoding="utf-8") == text


def test_a_merge_keeps_the_comments_a_record_starts_with(tmp_path, capsys) -> None:
    record_id = "vllm/engine-core-encountered-fatal-error"
    root = _curated_root(tmp_path, record_id)
    path = root / f"{record_id}.yaml"
    before = load_file(path, root=root)[0].data
    modeline, rest = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(f"{modeline}\n# Reviewed against vLLM 0.9 by hand.\n{rest}", encoding="utf-8")
    source = tmp_path / "entry.json"
    source.write_text(json.dumps(dict(_collisions(record_id))["deadends-same-error"]), encoding="utf-8")
    main(["import", "--root", str(root), str(source)])
    assert f"merged into {record_id}" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8").startswith(f"{modeline}\n# Reviewed against vLLM 0.9 by hand.\nid: {record_id}\n")
    _kept(before, load_file(path, root=root)[0].data)


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_a_record_file_that_does_not_load_is_never_replaced(tmp_path, capsys, force) -> None:
    """A curated file with a typo in it (or whose id is not its path) is still curated work: an import of the
    same id leaves it alone."""
    record_id = "vllm/hf3fs-allocation-failed"
    root = _curated_root(tmp_path, record_id)
    path = root / f"{record_id}.yaml"
    broken = path.read_text(encoding="utf-8").replace("\nexplanation: '", "\nexplanation: Our own words: '", 1)
    path.write_text(broken, encoding="utf-8")
    assert load_file(path, root=root)[0] is None  # it does not load
    origin = load_file(DATA / f"{record_id}.yaml", root=DATA)[0].data["provenance"]["origin"]["id"]
    for entry in (_errlookup(record_id, origin, "Their wording of it {}", "Their wording of it (.+)"),
                  _errlookup(record_id, "00000000000000ff", "Completely unrelated failure {}", "Completely unrelated failure (.+)")):
        source = tmp_path / "entry.json"
        source.write_text(json.dumps(entry), encoding="utf-8")
        assert main(["import", "--root", str(root), *force, str(source)]) == 1
        assert "an import never replaces" in capsys.readouterr().err
        assert path.read_text(encoding="utf-8") == broken


def test_an_index_pattern_with_a_lone_surrogate_is_skipped_not_a_traceback(tmp_path, capsys) -> None:
    index, log = _index_and_log(tmp_path, ["x", "y"])
    doc = json.loads(index.read_text(encoding="utf-8"))
    doc["patterns"][0]["regex"] = "Boom 0000 marker \ud800(.+) end"
    doc["patterns"][1]["exception_class"] = "Err\udfff"
    doc["patterns"].append({**doc["patterns"][1], "id": "demo/third", "regex": "Boom 0001 marker (.+) end", "exception_class": "Err"})
    index.write_text(json.dumps(doc), encoding="utf-8")
    assert main(["match", str(log), "--index", str(index), "--format", "json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)["results"]] == ["demo/third"]


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_every_command_writes_through_the_filter(tmp_path, capsys, fmt) -> None:
    """A line that forgot to escape is still safe: validate names an unknown key of a record, raw in its pointer."""
    import yaml

    text = (FIXTURES / "valid/demo/minimal.yaml").read_text(encoding="utf-8")
    keys = [f"k{i}{seq}" for i, seq in enumerate(SEQUENCES)] + ["k\u2066x", "k\x85x", "k\U000e0041x"]
    extra = "".join(yaml.safe_dump({key: 1}, width=1000) for key in keys)
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir()
    path.write_text(text.replace("solutions:\n", extra + "solutions:\n", 1), encoding="utf-8")
    assert main(["validate", "--format", fmt, "--root", str(tmp_path), str(path)]) == 1
    got = capsys.readouterr()
    assert not _raw(got.out + got.err)
    if fmt == "json":
        pointers = {f["pointer"] for f in json.loads(got.out)["findings"]}
        assert {"/" + pointer_escape(key) for key in keys} <= pointers
