"""The harvest on hostile upstream files: one costs only itself. A release holding files that break the parser,
hold text the catalog cannot take, sit at paths the catalog refuses, or make extraction run away is harvested
all the same: the other files' messages are written, each hostile file (or entry) is named in the report, the
written catalog passes `errdex validate`, and the exit code tells a fetch failure (3) from a crash."""

from __future__ import annotations

import sys
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from generator.checks.catalog import check_catalog
from generator.cli import main
from generator.harvest import extract_python as extract_python_module
from generator.harvest import extract_tree_sitter as extract_tree_sitter_module
from generator.harvest import extract_go as extract_go_module
from generator.harvest import run as run_module
from generator.harvest import sites as sites_module
from generator.harvest.catalog import read_catalog, read_releases
from generator.harvest.config import CCall, load_config
from generator.harvest.extract_python import extract_python
from generator.harvest.extract_go import extract_go
from generator.harvest.extract_tree_sitter import extract_c, extract_rust
from generator.harvest.fetch import Cache, FetchError
from generator.harvest.run import harvest

CONFIG = textwrap.dedent('''\
    projects:
      demo:
        repo: example-org/engine
        source: pypi
        package: demo-engine
        artifact: wheel
        languages: [python]
        include: [demo/]
        releases: ["1.0", "1.1"]
''')

NORMAL = {
    "demo/engine.py": textwrap.dedent('''\
        def start(n):
            raise ValueError(f"The engine could not start with {n} workers")


        def stop():
            raise RuntimeError("The engine was stopped before it finished loading")
    '''),
    "demo/config.py": "def parse(k):\n    raise KeyError(f\"Unknown configuration key {k}\")\n",
}
NORMAL_TEMPLATES = {"The engine could not start with {} workers", "The engine was stopped before it finished loading",
                    "Unknown configuration key {}"}

# Files that stop the parser or the walk: each must be skipped, and named.
UNPARSABLE = {
    "demo/unary.py": "x = " + "-" * 10000 + "1\n",  # 10 KB: MemoryError from ast.parse
    "demo/parens.py": "x = " + "(" * 5000 + ")" * 5000 + "\n",  # SyntaxError: too many nested parentheses
    "demo/attributes.py": "x = a" + ".b" * 100000 + "\n",  # RecursionError while the tree is built
    "demo/walk.py": "def f():\n    raise ValueError(a" + ".b" * 800 + ")\n",  # parses; too deep to walk (RecursionError)
    "demo/nul.py": "raise ValueError('a message before a NUL byte')\0\n",  # ValueError (or SyntaxError)
    "demo/surrogate.py": 'def f():\n    raise ValueError("a lone \\ud800 surrogate in this message")\n',  # no UTF-8 for it
}
# Files whose path the catalog's schema refuses: the file is skipped, so the normal file keeps the message.
BAD_PATHS = ["demo/a b.py", "demo/../up.py", "demo/sub/../../up2.py", "demo/back\\slash.py", "demo/fü.py", "demo/tab\there.py"]
BAD_PATH_TEXT = "def parse(k):\n    raise KeyError(f\"Unknown configuration key {k}\")\n    raise KeyError('Only a file at a refused path raises this')\n"
# Files that parse, whose entries the catalog's checks refuse: each such entry is dropped, and named.
REFUSED_ENTRIES = {
    "demo/long.py": "def f():\n    raise ValueError(" + repr("A message far too long to be a catalog entry. " * 500) + ")\n",  # > 20,000
    "demo/escape.py": "def f():\n    raise ValueError('\\x1b[2J\\x1b]8;;https://evil.example/\\x07this message clears the screen')\n",
    "demo/hidden.py": "def f():\n    raise ValueError('an invisible\\u200b character hides in this message text')\n",
    "demo/names.py": "def f\u00fcnf():\n    raise ValueError('A message raised in a function with a non-ASCII name')\n",
}


def _release_files(version: str) -> dict[str, str]:
    files = {**NORMAL, **UNPARSABLE, **REFUSED_ENTRIES}
    files.update({path: BAD_PATH_TEXT for path in BAD_PATHS})
    if version == "1.1":
        files["demo/engine.py"] += "\n\ndef later():\n    raise ValueError('A message the second release adds to the engine')\n"
    return files


def hostile_wheel(project, version: str, dest: Path) -> Path:
    path = dest / f"demo_engine-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in _release_files(version).items():
            wheel.writestr(name, text.encode("utf-8", "surrogatepass"))
        wheel.writestr(f"demo_engine-{version}.dist-info/METADATA", "Name: demo-engine\n")
    return path


REAL_FETCH = run_module.fetch_release


def _fetching(download: Callable) -> Callable:
    """run.fetch_release with the releases' artifacts made here (no network)."""
    def fetch(project, version, cache, git, downloader=None):
        return REAL_FETCH(project, version, cache, git, download)
    return fetch


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(run_module, "fetch_release", _fetching(hostile_wheel))
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "projects.yaml").write_text(CONFIG)
    return SimpleNamespace(catalog=catalog, cache=tmp_path / "cache", config=catalog / "projects.yaml")


def _harvest(ws, *extra: str) -> int:
    return main(["harvest", *extra, "--cache", str(ws.cache), "--config", str(ws.config), "--out", str(ws.catalog)])


def _templates(ws) -> dict[str, dict]:
    return {e["template"]: e for e in read_catalog(ws.catalog / "demo.jsonl")}


def test_hostile_files_are_skipped_and_named_and_the_rest_is_harvested(workspace, capsys) -> None:
    ws = workspace
    assert _harvest(ws) == 0
    out = capsys.readouterr().out
    entries = _templates(ws)
    assert NORMAL_TEMPLATES <= set(entries)
    assert entries["A message the second release adds to the engine"]["first"] == "1.1"
    # the message of the files at refused paths is the normal file's alone; their own message is nowhere
    assert [s["path"] for s in entries["Unknown configuration key {}"]["sites"]] == ["demo/config.py"]
    assert not any("refused path" in t or "surrogate" in t or "far too long" in t or "clears the screen" in t
                   or "invisible" in t or "non-ASCII" in t for t in entries)
    assert all(s["path"].startswith("demo/") and " " not in s["path"] and ".." not in s["path"] for e in entries.values() for s in e["sites"])
    # every hostile file is named in the report, with what happened to it
    lines = out.splitlines()
    for path in [*UNPARSABLE, *BAD_PATHS]:
        shown = path.replace("\t", "\\u0009")
        assert any(shown in line and "skipped" in line for line in lines), (path, out)
    for path in REFUSED_ENTRIES:
        assert any(path in line and "dropped" in line for line in lines), (path, out)
    assert "demo/engine.py" not in out and "demo/config.py" not in out
    assert f"{2 * (len(UNPARSABLE) + len(BAD_PATHS))} files skipped" in out
    assert check_catalog(ws.catalog) == []


def _config(folder: Path) -> Path:
    path = folder / "projects.yaml"
    path.write_text(CONFIG)
    return path


def test_the_report_names_project_release_path_and_reason(tmp_path: Path) -> None:
    projects = load_config(_config(tmp_path))
    outcome = harvest(projects, None, Cache(tmp_path / "cache"), {}, root=tmp_path, log=lambda line: None, downloader=hostile_wheel)
    assert outcome.failures == []
    skipped = {(n.project, n.release, n.path) for n in outcome.skipped}
    assert skipped == {("demo", v, p) for v in ("1.0", "1.1") for p in [*UNPARSABLE, *BAD_PATHS]}
    reasons = {n.path: n.reason for n in outcome.skipped if n.release == "1.0"}
    assert "MemoryError" in reasons["demo/unary.py"] or "RecursionError" in reasons["demo/unary.py"]
    assert "SyntaxError" in reasons["demo/parens.py"] and "RecursionError" in reasons["demo/walk.py"]
    assert "surrogate" in reasons["demo/surrogate.py"] and "schema" in reasons["demo/a b.py"]
    assert [t.skipped for t in outcome.timings] == [len(UNPARSABLE) + len(BAD_PATHS)] * 2
    dropped = {n.path: n for n in outcome.dropped}
    assert set(dropped) == set(REFUSED_ENTRIES)
    assert all(n.project == "demo" and n.release == "1.1" and "CAT002" in n.reason and n.id.startswith("demo/") for n in dropped.values())
    assert check_catalog(tmp_path) == []


def test_harvest_output_is_the_same_from_the_cache(workspace) -> None:
    ws = workspace
    assert _harvest(ws) == 0
    first = {p.name: p.read_bytes() for p in ws.catalog.glob("*.json*")}
    assert _harvest(ws) == 0
    assert {p.name: p.read_bytes() for p in ws.catalog.glob("*.json*")} == first


def test_new_releases_pass_the_same_gate(workspace, monkeypatch, capsys) -> None:
    ws = workspace
    assert _harvest(ws, "demo", "--releases", "1.0") == 0
    monkeypatch.setattr(run_module, "pypi_versions", lambda project: ["1.1", "1.0"])
    assert _harvest(ws, "demo", "--new") == 0
    assert "demo/unary.py" in capsys.readouterr().out
    assert check_catalog(ws.catalog) == []
    incremental = (ws.catalog / "demo.jsonl").read_bytes()
    assert _harvest(ws, "demo", "--releases", "1.0", "1.1") == 0
    assert (ws.catalog / "demo.jsonl").read_bytes() == incremental


# ---------------------------------------------------------------- exit codes: 0, 3 for fetch failures only


def _failing(version: str, error: Exception) -> Callable:
    def download(project, wanted: str, dest: Path) -> Path:
        if wanted == version:
            raise error
        return hostile_wheel(project, wanted, dest)
    return download


def test_a_release_that_cannot_be_fetched_exits_3_and_the_others_are_written(workspace, monkeypatch, capsys) -> None:
    ws = workspace
    monkeypatch.setattr(run_module, "fetch_release", _fetching(_failing("1.1", FetchError("the index lists no wheel"))))
    assert _harvest(ws) == 3
    assert "the index lists no wheel" in capsys.readouterr().err
    assert [r["version"] for r in read_releases(ws.catalog)["demo"]] == ["1.0"]
    assert NORMAL_TEMPLATES <= set(_templates(ws))
    assert check_catalog(ws.catalog) == []


def test_a_release_whose_row_the_catalog_refuses_is_not_written(workspace, monkeypatch, capsys) -> None:
    def download(project, version: str, dest: Path) -> Path:
        wheel = hostile_wheel(project, version, dest)
        return wheel.rename(dest / "<svg onload=alert(1)>.whl") if version == "1.1" else wheel

    ws = workspace
    monkeypatch.setattr(run_module, "fetch_release", _fetching(download))
    assert _harvest(ws) == 3
    assert "releases.json row" in capsys.readouterr().err
    assert [r["version"] for r in read_releases(ws.catalog)["demo"]] == ["1.0"]
    assert check_catalog(ws.catalog) == []


def test_no_release_fetched_is_a_failure_not_3(workspace, monkeypatch) -> None:
    ws = workspace
    monkeypatch.setattr(run_module, "fetch_release", _fetching(_failing("1.0", FetchError("offline"))))
    assert _harvest(ws, "demo", "--releases", "1.0") == 1
    assert not (ws.catalog / "demo.jsonl").exists()


@pytest.mark.parametrize("error", [RuntimeError("a bug"), KeyError("manifest"), OSError("disk full")])
def test_a_crash_is_never_exit_3(workspace, monkeypatch, error) -> None:
    ws = workspace
    monkeypatch.setattr(run_module, "fetch_release", _fetching(_failing("1.1", error)))
    with pytest.raises(type(error)):
        _harvest(ws)
    monkeypatch.setattr(run_module, "release_sites", lambda *a: (_ for _ in ()).throw(error))
    with pytest.raises(type(error)):
        _harvest(ws, "demo", "--releases", "1.0")


# ---------------------------------------------------------------- extraction is linear in the file


class _Runaway(BaseException):
    """Work far past what a linear extractor does: stop at once (the old quadratic one would run for minutes)."""


def _work(call: Callable[[], list], ceiling: int) -> tuple[int, list]:
    """(lines run in the extractor modules, the sites found): a count of work that does not depend on timing."""
    files = {extract_python_module.__file__, extract_tree_sitter_module.__file__, extract_go_module.__file__, sites_module.__file__}
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
            if count > ceiling:
                raise _Runaway(f"more than {ceiling} lines run")
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename in files else None

    sys.settrace(calls)
    try:
        found = call()
    finally:
        sys.settrace(None)
    return count, found


PER_LINE = 400  # lines of extractor run per line of source, at most: far above what any real file needs


def _python(body: str, repeat: int) -> bytes:
    return ("def f(a):\n    m = 'The first part of a message that grows'\n" + textwrap.indent(body, "    ") * repeat).encode()


PYTHON_RUNAWAYS = {  # name: (statements repeated, repeats of the smaller file; the larger one has 4 times as many)
    "augmented": ("m += 'x'\nraise ValueError(m)\n", 4000),  # the reported file: 4,000 and 16,000 repeats
    "same line": ("m += 'x'; raise ValueError(m)\n", 1000),
    "self": ("m = m + 'x'\nraise ValueError(m)\n", 1000),
    "doubling": ("m = m + m\nraise ValueError(m)\n", 1000),
    "logged": ("m += ' and more'\nlogger.error(m + m + m + m)\n", 1000),
    "asserted": ("m += m\nassert a, m\n", 1000),
}


@pytest.mark.parametrize("name", list(PYTHON_RUNAWAYS))
def test_python_extraction_is_linear_in_the_file(name: str) -> None:
    body, repeat = PYTHON_RUNAWAYS[name]
    counts, sizes = [], []
    for times in (repeat, 4 * repeat):
        source = _python(body, times)
        work, sites = _work(lambda: extract_python(source), PER_LINE * source.count(b"\n"))
        counts.append(work)
        sizes.append(sum(len(s.template) + len(s.statement) for s in sites))
        assert all(len(s.template) <= 20000 for s in sites)  # what the catalog takes
    assert counts[1] <= 4.5 * counts[0], counts  # 4 times the file: 4 times the work, not 16
    assert sizes[1] <= 4.5 * sizes[0] + 100_000, sizes


def test_one_long_message_used_many_times_costs_its_length_once() -> None:
    for repeat in (4000, 16000):
        source = ("M = " + repr("words " * 3000) + "\n" + "raise ValueError(M)\n" * repeat).encode()
        work, sites = _work(lambda: extract_python(source), PER_LINE * source.count(b"\n"))
        assert sum(len(s.template) for s in sites) <= 64 * len(source) + (1 << 20)


CALLS = {"GGML_ASSERT": CCall(kind="assert", condition=True), "GGML_ABORT": CCall(kind="panic")}
NATIVE_RUNAWAYS = {
    "nested blocks": ("cpp", lambda n: "void f() {" + '{ throw std::runtime_error("failed to open the model file"); ' * n + "}" * n + "}\n"),
    "nested asserts": ("cpp", lambda n: "void f() {\n" + "GGML_ASSERT(\n" * n + "x" + ")" * n + ";}\n"),
    "nested aborts": ("c", lambda n: "void f() {\n" + 'GGML_ABORT("unsupported tensor type %d" +\n' * n + "x" + ")" * n + ";}\n"),
    "attribute run": ("rust", lambda n: "enum E {\n" + '#[error("the request failed in the router")]\n' * n + "A,\n}\n"),
    "nested rust blocks": ("rust", lambda n: "fn f() {\n" + '{ panic!("the shard process was signaled to stop");\n' * n + "}" * n + "}\n"),
    "nested go blocks": ("go", lambda n: "package x\nfunc f() {\n" + '{ return fmt.Errorf("pull model manifest: %w", err)\n' * n + "}" * n + "}\n"),
    "go concatenation": ("go", lambda n: "package x\nfunc f() {\nreturn errors.New(" + '"model requires more memory " + x + ' * n + '"")\n}\n'),
    "go error maps": ("go", lambda n: "package x\nfunc f() {\n" + 'c.JSON(400, gin.H{"error": "model is required"})\n' * n + "}\n"),
}


@pytest.mark.parametrize("name", list(NATIVE_RUNAWAYS))
def test_c_and_rust_extraction_is_linear_in_the_file(name: str) -> None:
    language, make = NATIVE_RUNAWAYS[name]
    counts = []
    for repeat in (1000, 4000):
        source = make(repeat).encode()
        run = ((lambda: extract_rust(source)) if language == "rust" else (lambda: extract_go(source)) if language == "go"
               else (lambda: extract_c(source, language, CALLS)))
        work, sites = _work(run, PER_LINE * max(source.count(b"\n"), repeat))
        counts.append(work)
        assert all(len(s.template) <= 20000 and len(s.function) <= 200 for s in sites)
    assert counts[1] <= 4.5 * counts[0], counts


def test_the_extractors_regular_expressions_cannot_backtrack_away() -> None:
    """Each regular expression run over upstream text passes the checks a record's pattern passes (no two
    repetitions that can split the same text, no slow input in a backtracking engine): "%" followed by 20,000
    zeros in a literal must not take time quadratic in its length."""
    from generator.match.backtrack import slow_input
    from generator.match.portable import analyse

    patterns = {"%-format": "%%|" + extract_python_module._PERCENT.pattern, "str.format": extract_python_module._FORMAT_FIELD.pattern,
                "printf": extract_tree_sitter_module._C_PERCENT.pattern, "go printf": extract_go_module._GO_PERCENT.pattern}
    for name, pattern in patterns.items():
        analysis = analyse(pattern)
        assert analysis.portable, (name, [str(p) for p in analysis.problems])
        assert slow_input(analysis.tree) is None, name
    assert extract_python_module.percent_template("%" + "0" * 20000 + "d: %s") == "%" + "0" * 20000 + "d: {}"


def test_real_shapes_are_extracted_as_before() -> None:
    """The bounds hold no real file back: a message built from many pieces, a long variable chain."""
    source = textwrap.dedent('''\
        def f(n):
            msg = "Model {} is not supported".format(n)
            for part in range(3):
                msg += f" (part {part})"
            msg += " on this platform"
            raise NotImplementedError(msg)
    ''').encode()
    (site,) = extract_python(source)
    assert site.template == "Model {} is not supported (part {}) on this platform"
    rust = b'enum E {\n    /// docs\n    #[error("the router failed: {0}")]\n    #[serde(skip)]\n    Router(String),\n}\n'
    (site,) = extract_rust(rust)
    assert (site.template, site.function, site.exception) == ("the router failed: {}", "Router", "E")
