"""The catalog harvest, without the network: fixture wheels and sdists built here with zipfile and tarfile, a git
repository with tags made with `git init`, every extraction kind, template form and version-range case."""

from __future__ import annotations

import json
import shutil
import re
import subprocess
import tarfile
import textwrap
import zipfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from generator.checks.catalog import check_catalog
from generator.checks.regex import compile_pattern
from generator.cli import main
from generator.harvest import fetch as fetch_module
from generator.harvest.catalog import Fold, newest_site, read_catalog, read_releases
from generator.harvest.config import CCall, parse_config
from generator.harvest.extract_python import extract_python
from generator.harvest.extract_tree_sitter import extract_c, extract_rust
from generator.harvest.fetch import Cache, fetch_git, fetch_pypi
from generator.harvest.run import add_releases_to_config, harvest
from generator.harvest.sites import Site
from generator.harvest.stats import link_records, project_stats
from generator.harvest.templates import entry_id, pattern_for, stable_part, tier
from generator.match.portable import analyse

# ---------------------------------------------------------------- Python extraction


PY = textwrap.dedent('''\
    import logging
    import warnings

    logger = logging.getLogger(__name__)


    def literal():
        raise ValueError("No available memory for the cache blocks. " "Try increasing it.")


    def fstring(n):
        raise RuntimeError(f"Failed to allocate {n} blocks for request {n!r}") from None


    def percent(n):
        raise KeyError("Unknown model %s (%d%% done)" % (n, 5))


    def dot_format(n):
        raise TypeError("Expected {} got {name}, not {{braces}}".format(n, name=n))


    def concat(n):
        raise errors.BadRequest("Token limit is " + str(n) + " tokens")


    def variable(n):
        msg = f"Model {n} is not supported"
        msg += " on this platform"
        raise NotImplementedError(msg)


    def logs(n):
        logger.error("Engine failed: %s", n)
        logger.warning(f"Falling back to {n}")
        logger.exception("Worker %d died", n)
        self.logger.critical("Critical state reached")
        logger.warning_once("Only once here")
        logger.info("not an error, not harvested")


    def warns(n):
        warnings.warn("use the new API instead", DeprecationWarning)
        warnings.warn(f"{n} is deprecated")


    def asserts(n):
        assert n > 0, f"n must be positive, got {n}"


    def ignored(n):
        raise ValueError
        raise ValueError(n)
        raise ValueError(f"{n}")
''')


def _by_function(sites: list[Site]) -> dict[str, list[Site]]:
    out: dict[str, list[Site]] = {}
    for site in sites:
        out.setdefault(site.function, []).append(site)
    return out


def test_python_sites_of_every_kind_and_template_form() -> None:
    sites = _by_function(extract_python(PY.encode()))
    assert [(s.template, s.exception, s.kind) for s in sites["literal"]] == [("No available memory for the cache blocks. Try increasing it.", "ValueError", "raise")]
    assert sites["fstring"][0].template == "Failed to allocate {} blocks for request {}"
    assert sites["percent"][0].template == "Unknown model {} ({}% done)"
    assert sites["dot_format"][0].template == "Expected {} got {}, not {braces}"
    assert (sites["concat"][0].template, sites["concat"][0].exception) == ("Token limit is {} tokens", "BadRequest")
    variable = sites["variable"][0]
    assert (variable.template, variable.exception, variable.statement) == ("Model {} is not supported on this platform", "NotImplementedError", "raise NotImplementedError(msg)")
    assert [(s.template, s.level) for s in sites["logs"]] == [
        ("Engine failed: {}", "error"), ("Falling back to {}", "warning"), ("Worker {} died", "error"),
        ("Critical state reached", "critical"), ("Only once here", "warning")]
    assert [(s.template, s.exception, s.kind) for s in sites["warns"]] == [
        ("use the new API instead", "DeprecationWarning", "warn"), ("{} is deprecated", "UserWarning", "warn")]
    assert [(s.template, s.kind) for s in sites["asserts"]] == [("n must be positive, got {}", "assert")]
    assert "ignored" not in sites
    assert sites["fstring"][0].line == 12 and sites["fstring"][0].statement.startswith("raise RuntimeError(f\"Failed")


def test_a_file_that_does_not_parse_gives_no_sites() -> None:
    assert extract_python(b"def broken(:\n    raise ValueError('x')\n") == []


# ---------------------------------------------------------------- C, C++ and Rust extraction

CALLS = {
    "GGML_ABORT": CCall(kind="panic"),
    "GGML_ASSERT": CCall(kind="assert", condition=True),
    "LLAMA_LOG_ERROR": CCall(kind="log", level="error"),
    "SLT_ERR": CCall(kind="log", level="error", arg=1),
    "send_error": CCall(kind="http", arg=1),
}

CPP = textwrap.dedent('''\
    #include <stdexcept>
    static void load(const std::string & path, int n) {
        if (n < 0) {
            throw std::runtime_error(format("invalid split file: %s (%" PRId64 " bytes)", path.c_str(), n));
        }
        throw std::invalid_argument("unknown model architecture: " + path);
    }
    void llama_model::check(int n) {
        GGML_ABORT("fatal error: unsupported type %d", n);
        GGML_ASSERT(n >= 0 && n < 10);
        LLAMA_LOG_ERROR("%s: failed to load model\\n", __func__);
        SLT_ERR(slot, "failed to decode, res = %zu\\n", n);
        send_error(task, std::string("Failed to format input: ") + e.what(), ERROR_TYPE_INVALID_REQUEST);
        send_error(task, "Invalid slot ID", ERROR_TYPE_INVALID_REQUEST);
        LLAMA_LOG_INFO("not an error\\n");
    }
''')


def test_cpp_sites_of_every_kind() -> None:
    sites = extract_c(CPP.encode(), "cpp", CALLS)
    got = [(s.kind, s.template, s.exception, s.level, s.function) for s in sites]
    assert got == [
        ("raise", "invalid split file: {} ({} bytes)", "std::runtime_error", None, "load"),
        ("raise", "unknown model architecture: {}", "std::invalid_argument", None, "load"),
        ("panic", "fatal error: unsupported type {}", None, None, "llama_model::check"),
        ("assert", "GGML_ASSERT(n >= 0 && n < 10) failed", None, None, "llama_model::check"),
        ("log", "{}: failed to load model", None, "error", "llama_model::check"),
        ("log", "failed to decode, res = {}", None, "error", "llama_model::check"),
        ("http", "Failed to format input: {}", None, None, "llama_model::check"),
        ("http", "Invalid slot ID", None, None, "llama_model::check"),
    ]
    assert sites[0].line == 4 and sites[0].statement.startswith("throw std::runtime_error(format(")


def test_c_files_use_the_c_grammar() -> None:
    sites = extract_c(b'void f(int n) { GGML_ABORT("bad tensor type %d", n); }\n', "c", CALLS)
    assert [(s.kind, s.template, s.function) for s in sites] == [("panic", "bad tensor type {}", "f")]


TORCH_CALLS = {
    "TORCH_CHECK": CCall(kind="raise", arg=1, joined=True, exception="RuntimeError"),
    "TORCH_CHECK_VALUE": CCall(kind="raise", arg=1, joined=True, exception="ValueError"),
    "TORCH_WARN": CCall(kind="warn", joined=True, exception="UserWarning"),
}


def test_joined_messages_are_their_arguments_as_c10_str_joins_them() -> None:
    source = textwrap.dedent('''\
        namespace at { inline void check(const Tensor& self, int64_t dim) {
          TORCH_CHECK(self.dim() == 2, "expected a 2-D tensor, but got ", self.dim(), "-D (dim=", dim, ")");
          TORCH_CHECK_VALUE(dim >= 0, "dim must be non-negative");
          TORCH_CHECK(self.defined());
          TORCH_CHECK(ok, reason);
          TORCH_WARN("Using ", name, " is deprecated");
        } }
    ''')
    sites = extract_c(source.encode(), "cpp", TORCH_CALLS)
    assert [(s.kind, s.template, s.exception, s.line) for s in sites] == [
        ("raise", "expected a 2-D tensor, but got {}-D (dim={})", "RuntimeError", 2),
        ("raise", "dim must be non-negative", "ValueError", 3),
        ("warn", "Using {} is deprecated", "UserWarning", 6),
    ]  # no message (line 4) and no literal text (line 5): no site


def test_a_function_is_named_by_its_name_alone() -> None:
    source = textwrap.dedent('''\
        C10_ALWAYS_INLINE std::pair<int64_t, int64_t> _check_inputs(const Tensor& input) {
          TORCH_CHECK(input.dim() > 0, "Expected a tensor");
        }
        PyObject* IValue::
            toPyObjectHolder() const {
          TORCH_CHECK(isPyObject(), "Expected PyObject");
        }
        template <class Input, class Model>
        Output ThroughputBenchmark<Input, Model>::benchmark(const Config& config) const {
          TORCH_CHECK(config.num_threads >= 1, "Expected at least one thread");
        }
    ''')
    sites = extract_c(source.encode(), "cpp", TORCH_CALLS)
    assert [s.function for s in sites] == ["_check_inputs", "IValue::toPyObjectHolder", "ThroughputBenchmark<Input, Model>::benchmark"]


def test_a_joined_message_built_too_long_is_no_site() -> None:
    long = ", ".join(['"' + "x" * 900 + '"'] * 6)
    sites = extract_c(f"void f() {{ TORCH_CHECK(c, {long}); }}\n".encode(), "cpp", TORCH_CALLS)
    assert sites == []


RUST = textwrap.dedent('''\
    #[derive(Debug, thiserror::Error)]
    pub enum ValidationError {
        #[error("`max_new_tokens` must be strictly positive")]
        NegativeMaxNewTokens,
        #[error("inputs tokens + `max_new_tokens` must be <= {0}. Given: {1} `inputs` tokens and {2} `max_new_tokens`")]
        MaxTotalTokens(usize, usize, u32),
        #[error("`{name}` must be < {max:?}")]
        TooLarge { name: String, max: usize },
    }
    fn serve(port: u16) {
        tracing::error!(target: "router", "Unable to bind port {port}");
        warn!("Graceful shutdown disabled!");
        panic!("Could not start the webserver: {}", port);
        let cfg = read().expect("Could not read the configuration");
        unreachable!("impossible state");
        tracing::info!("not an error");
    }
''')


def test_rust_sites_of_every_kind() -> None:
    sites = extract_rust(RUST.encode())
    got = [(s.kind, s.template, s.exception, s.level, s.function) for s in sites]
    assert got == [
        ("raise", "`max_new_tokens` must be strictly positive", "ValidationError", None, "NegativeMaxNewTokens"),
        ("raise", "inputs tokens + `max_new_tokens` must be <= {}. Given: {} `inputs` tokens and {} `max_new_tokens`", "ValidationError", None, "MaxTotalTokens"),
        ("raise", "`{}` must be < {}", "ValidationError", None, "TooLarge"),
        ("log", "Unable to bind port {}", None, "error", "serve"),
        ("log", "Graceful shutdown disabled!", None, "warning", "serve"),
        ("panic", "Could not start the webserver: {}", None, None, "serve"),
        ("panic", "Could not read the configuration: {}", None, None, "serve"),
        ("panic", "impossible state", None, None, "serve"),
    ]


GO = textwrap.dedent('''\
    package server

    var errRequired = errors.New("model is required")

    func (s *Server) PullHandler(c *gin.Context) {
    	if err := pull(); err != nil {
    		c.AbortWithStatusJSON(http.StatusBadRequest, gin.H{"error": "pull model manifest: " + err.Error()})
    		return
    	}
    	slog.Error("error loading llama server", "error", err)
    	slog.WarnContext(ctx, `model template contains errors`)
    	log.Fatalf("Error: %v", err)
    	http.Error(w, "unsupported content type", http.StatusUnsupportedMediaType)
    	panic(fmt.Sprintf("unexpected layer %d of %q", n, name))
    }

    func load(n int) error {
    	return fmt.Errorf("model requires more system memory (%s) than is available (%5.1f %%)", need, n)
    }
    ''')


def test_go_sites_of_every_kind() -> None:
    from generator.harvest.extract_go import extract_go

    got = [(s.kind, s.template, s.level, s.function, s.line) for s in extract_go(GO.encode())]
    assert got == [
        ("raise", "model is required", None, "<file>", 3),
        ("http", "pull model manifest: {}", None, "Server.PullHandler", 7),
        ("log", "error loading llama server", "error", "Server.PullHandler", 10),
        ("log", "model template contains errors", "warning", "Server.PullHandler", 11),
        ("log", "Error: {}", "critical", "Server.PullHandler", 12),
        ("http", "unsupported content type", None, "Server.PullHandler", 13),
        ("panic", "unexpected layer {} of {}", None, "Server.PullHandler", 14),
        ("raise", "model requires more system memory ({}) than is available ({} %)", None, "load", 18),
    ]


# ---------------------------------------------------------------- templates -> ids, patterns, tiers


def test_ids_ignore_reflowed_whitespace() -> None:
    assert entry_id("vllm", "a  b\n c") == entry_id("vllm", "a b c") != entry_id("sglang", "a b c")
    assert entry_id("vllm", "x").startswith("vllm/") and len(entry_id("vllm", "x")) == len("vllm/") + 16


@pytest.mark.parametrize("template, finds", [
    ("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
     ["ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.",
      "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` (or `kv_cache_memory_bytes` on CPU) when initializing the engine."]),
    ("Failed to allocate {} blocks for request {}", ["ValueError: Failed to allocate 12 blocks for request req-7"]),
    ("{}: failed to load model '{}'", ["llama_model_load: failed to load model 'x.gguf'"]),
    ("Model architectures {} are not supported for now. Supported architectures: {}\nSee the docs for more.",
     ["ValueError: Model architectures ['Foo'] are not supported for now. Supported architectures: dict_keys([...])"]),
    ("Error with {braces} and [brackets] (parens) $ ^ * + ? |", ["Error with {braces} and [brackets] (parens) $ ^ * + ? |"]),
    ("x" * 400 + " {}", ["x" * 400 + " 1"]),
])
def test_patterns_are_portable_and_find_the_message(template: str, finds: list[str]) -> None:
    found = pattern_for(template)
    assert found is not None
    assert analyse(found.pattern).portable
    assert found.literal and all(found.literal in text for text in finds)  # what the prefilter looks for, in every match
    for text in finds:
        assert compile_pattern(found.pattern).search(text), (found.pattern, text)


def test_a_message_with_no_specific_part_gets_no_pattern() -> None:
    assert pattern_for("{}: {}") is None
    assert pattern_for("Error {}") is None


def test_the_stable_part_is_the_first_specific_line_and_sentence() -> None:
    assert stable_part("Short\nThe second line is the specific one. More words here.") == "The second line is the specific one."
    assert stable_part("{} {}: model is not supported") == ": model is not supported"


def test_tiers() -> None:
    site = Site("Bad request: {}", "raise", 1, "", "f", "ValueError")
    assert tier(site, user_path=True) == "user"
    assert tier(site, user_path=False) == "internal"
    assert tier(Site("x", "raise", 1, "", "f", "NotImplementedError"), True) == "internal"
    assert tier(Site("Expected shape {}", "raise", 1, "", "f", "ValueError"), True) == "internal"
    assert tier(Site("n must be positive", "assert", 1, "", "f", "AssertionError"), True) == "internal"
    assert tier(Site("Falling back to {}", "log", 1, "", "f", None, "warning"), False) == "user"


# ---------------------------------------------------------------- fixture releases: wheels, sdists, git tags

CONFIG = textwrap.dedent('''\
    projects:
      demo:
        repo: example-org/engine
        source: pypi
        package: demo-engine
        artifact: wheel
        languages: [python]
        include: [demo/]
        skip: ["*/tests/*", demo/vendored/]
        user: [demo/entrypoints/*]
        releases: ["1.0", "1.1", "1.2", "1.3"]
      native:
        repo: example-org/native
        source: pypi
        package: native-py
        artifact: sdist
        strip: vendor/native/
        languages: [c, cpp]
        include: [src/]
        c_calls:
          GGML_ABORT: {kind: panic, arg: 0}
        releases: ["0.1.0", "0.2.0"]
      gitproj:
        repo: example-org/gitproj
        source: git
        languages: [python, rust, go]
        include: [server/, router/]
        releases: ["v1.0.0", "v1.1.0"]
''')

OOM_OLD = 'raise ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.")'
OOM_NEW = 'raise ValueError("No available memory for the cache blocks. Try increasing `gpu_memory_utilization` (or `kv_cache_memory_bytes` on CPU) when initializing the engine.")'


API = textwrap.dedent('''\
    import argparse


    def make_parser():
        parser = argparse.ArgumentParser()
        parser.add_argument("--port", type=int, default=8000, help="The port the server listens on.")
        return parser


    def serve(n, port):
        """Start the API server.

        More text."""
        # another server may hold the port
        if port_in_use(port):
            raise ValueError(f"Port {n} is already in use by another server")
    ''')


def _demo_files(version: str) -> dict[str, str]:
    oom = OOM_OLD if version in ("1.0", "1.1") else OOM_NEW
    files = {
        "demo/engine.py": f"def check_memory():\n    {oom}\n",
        "demo/entrypoints/api.py": API,
        "demo/tests/test_x.py": "def test():\n    raise ValueError('Only a test raises this message')\n",
        "demo/vendored/lib.py": "def f():\n    raise ValueError('Vendored code raises this message')\n",
        "demo/README.txt": "not code",
    }
    if version != "1.2":  # absent from 1.2, back in 1.3: two ranges
        files["demo/config.py"] = "\n" * (3 if version == "1.3" else 0) + "def parse(k):\n    raise KeyError(f\"Unknown configuration key {k}\")\n"
    if version in ("1.0", "1.1"):  # removed in 1.2: last is 1.1
        files["demo/legacy.py"] = "def old():\n    raise RuntimeError('The legacy block manager ran out of blocks')\n"
    if version == "1.3":  # the same message raised from a second file too: both sites are kept
        files["demo/engine_hpu.py"] = f"def check_memory():\n    pass\n    {oom}\n"
    if version in ("1.2", "1.3"):  # moved to another file in 1.2: a second site
        files["demo/worker/worker.py"] = "import logging\nlogger = logging.getLogger()\ndef run(x):\n    logger.error('Worker crashed while running the model: %s', x)\n"
    else:
        files["demo/worker.py"] = "import logging\nlogger = logging.getLogger()\ndef run(x):\n    logger.error('Worker crashed while running the model: %s', x)\n"
    return files


def _wheel(dest: Path, version: str) -> Path:
    path = dest / f"demo_engine-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, text in _demo_files(version).items():
            wheel.writestr(name, text)
        wheel.writestr(f"demo_engine-{version}.dist-info/METADATA", "Name: demo-engine\n")
    return path


def _sdist(dest: Path, version: str) -> Path:
    path = dest / f"native_py-{version}.tar.gz"
    files = {
        "vendor/native/src/model.cpp": 'void load(int n) {\n    GGML_ABORT("unsupported tensor type %d", n);\n    throw std::runtime_error("failed to open the model file");\n}\n',
        "vendor/native/tests/t.cpp": 'void t() { throw std::runtime_error("a test-only failure message"); }\n',
        "native_py/__init__.py": "raise ValueError('binding code is not the vendored project')\n",
    }
    if version == "0.2.0":
        files["vendor/native/src/model.cpp"] = files["vendor/native/src/model.cpp"].replace("failed to open the model file", "failed to open the model file: permission denied")
    with tarfile.open(path, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"native_py-{version}/{name}")
            info.size = len(data)
            import io

            archive.addfile(info, io.BytesIO(data))
    return path


def fake_pip_download(project, version: str, dest: Path) -> Path:
    if project.slug == "demo":
        return _wheel(dest, version)
    return _sdist(dest, version)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args], check=True, capture_output=True)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "gitproj"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "server").mkdir()
    (repo / "router").mkdir()
    (repo / "server" / "cli.py").write_text("def main():\n    raise RuntimeError('Shard process was signaled to shutdown')\n")
    (repo / "router" / "lib.rs").write_text('#[derive(thiserror::Error)]\npub enum E {\n    #[error("Request failed during generation: {0}")]\n    Generation(String),\n}\n')
    (repo / "router" / "serve.go").write_text('package router\n\nfunc Serve() error {\n\treturn fmt.Errorf("router could not bind its port: %w", err)\n}\n')
    (repo / "docs.py").write_text("raise ValueError('not under an included path')\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "one")
    _git(repo, "tag", "v1.0.0")
    (repo / "server" / "cli.py").write_text("def main():\n    raise RuntimeError('Shard process was signaled to shutdown with a timeout')\n")
    _git(repo, "commit", "-q", "-am", "two")
    _git(repo, "tag", "v1.1.0")
    return repo


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch, git_repo: Path):
    monkeypatch.setattr(fetch_module, "index_download", fake_pip_download)
    catalog = tmp_path / "catalog"
    catalog.mkdir()
    (catalog / "projects.yaml").write_text(CONFIG)
    return SimpleNamespace(catalog=catalog, cache=tmp_path / "cache", git=git_repo, config=catalog / "projects.yaml")


def _harvest(ws, *extra: str) -> int:
    return main(["harvest", *extra, "--cache", str(ws.cache), "--git", f"example-org/gitproj={ws.git}", "--config", str(ws.config), "--out", str(ws.catalog)])


def _entries(ws, slug: str) -> dict[str, dict]:
    return {e["template"]: e for e in read_catalog(ws.catalog / f"{slug}.jsonl")}


def test_harvest_writes_a_valid_catalog_with_version_ranges(workspace, capsys) -> None:
    ws = workspace
    assert _harvest(ws) == 0, capsys.readouterr()
    demo = _entries(ws, "demo")
    old = demo["No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine."]
    new = demo["No available memory for the cache blocks. Try increasing `gpu_memory_utilization` (or `kv_cache_memory_bytes` on CPU) when initializing the engine."]
    assert (old["first"], old["last"], new["first"], new["last"]) == ("1.0", "1.1", "1.2", "1.3")  # the wording changed in 1.2
    # every raise site is kept, the preferred one first among those of the newest release
    assert [(s["path"], s["from"], s["to"], s["line"]) for s in new["sites"]] == [("demo/engine.py", "1.2", "1.3", 2), ("demo/engine_hpu.py", "1.3", "1.3", 3)]
    assert old["pattern"] == new["pattern"] and old["variants"] == [new["id"]] and new["variants"] == [old["id"]]
    config = demo["Unknown configuration key {}"]
    assert config["releases"] == [["1.0", "1.1"], ["1.3", "1.3"]]  # absent from 1.2: a gap
    assert [(s["from"], s["to"], s["line"]) for s in config["sites"]] == [("1.0", "1.1", 2), ("1.3", "1.3", 5)]
    assert demo["The legacy block manager ran out of blocks"]["last"] == "1.1"  # removed: its last release
    moved = demo["Worker crashed while running the model: {}"]
    assert [(s["path"], s["from"], s["to"]) for s in moved["sites"]] == [("demo/worker.py", "1.0", "1.1"), ("demo/worker/worker.py", "1.2", "1.3")]
    assert (moved["kind"], moved["level"], moved["tier"]) == ("log", "error", "user")
    port = demo["Port {} is already in use by another server"]
    assert port["tier"] == "user"
    # a user-facing entry's guide, read from the code at its newest site
    assert port["guide"] == {"release": "1.3", "path": "demo/entrypoints/api.py", "line": 16,
                             "guard": {"kind": "if", "source": "port_in_use(port)"}, "comment": "another server may hold the port",
                             "doc": "Start the API server.",
                             "options": [{"kind": "flag", "name": "port", "flag": "--port", "default": "8000", "help": "The port the server listens on.",
                                          "path": "demo/entrypoints/api.py", "line": 6}]}
    assert "guide" not in old  # internal entries get none
    assert old["tier"] == "internal"
    assert not any("test raises" in t or "Vendored" in t for t in demo)  # tests and vendored code are skipped
    native = _entries(ws, "native")
    assert set(native) == {"unsupported tensor type {}", "failed to open the model file", "failed to open the model file: permission denied"}
    assert native["unsupported tensor type {}"]["sites"][0]["path"] == "src/model.cpp"  # the vendor prefix is stripped
    gitproj = _entries(ws, "gitproj")
    assert set(gitproj) == {"Shard process was signaled to shutdown", "Shard process was signaled to shutdown with a timeout", "Request failed during generation: {}",
                            "router could not bind its port: {}"}  # Go too
    releases = read_releases(ws.catalog)
    assert [r["version"] for r in releases["demo"]] == ["1.0", "1.1", "1.2", "1.3"]
    assert all(len(r["sha256"]) == 64 and r["artifact"].endswith(".whl") for r in releases["demo"])
    assert releases["gitproj"][0]["source"] == "git" and len(releases["gitproj"][0]["commit"]) == 40
    assert check_catalog(ws.catalog) == []
    lines = (ws.catalog / "demo.jsonl").read_text().splitlines()
    ids = [json.loads(l)["id"] for l in lines]
    assert ids == sorted(ids) and all(json.dumps(json.loads(l), sort_keys=True, separators=(",", ":"), ensure_ascii=False) == l for l in lines)


def test_harvest_is_deterministic_and_cached(workspace) -> None:
    ws = workspace
    assert _harvest(ws) == 0
    first = {p.name: p.read_bytes() for p in ws.catalog.glob("*.json*")}
    calls = []
    original = fetch_module.index_download
    fetch_module.index_download = lambda *a: calls.append(a) or original(*a)
    try:
        assert _harvest(ws) == 0
    finally:
        fetch_module.index_download = original
    assert calls == []  # every release came from the cache
    assert {p.name: p.read_bytes() for p in ws.catalog.glob("*.json*")} == first
    assert not list(ws.cache.rglob("*.whl")) and not list(ws.cache.rglob("*.tar.gz"))  # artifacts are deleted


def test_fetch_stores_files_once_by_content(tmp_path: Path) -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["demo"]
    cache = Cache(tmp_path)
    a = fetch_pypi(project, "1.0", cache, fake_pip_download)
    b = fetch_pypi(project, "1.1", cache, fake_pip_download)
    assert a["files"] == b["files"]  # unchanged files: the same blobs
    assert sorted(a["files"]) == ["demo/config.py", "demo/engine.py", "demo/entrypoints/api.py", "demo/legacy.py", "demo/worker.py"]
    assert len(list((tmp_path / "blobs").rglob("*"))) - len(list((tmp_path / "blobs").glob("*"))) == 5


def test_a_release_cached_under_another_selection_of_files_is_read_again(tmp_path: Path) -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["demo"]
    cache, calls = Cache(tmp_path), []

    def download(*args):
        calls.append(args[1])
        return fake_pip_download(*args)

    fetch_pypi(project, "1.0", cache, download)
    fetch_pypi(project, "1.0", cache, download)
    assert calls == ["1.0"]  # the same selection: the cached manifest
    project.skip = [*project.skip, "demo/legacy.py"]
    again = fetch_pypi(project, "1.0", cache, download)
    assert calls == ["1.0", "1.0"] and "demo/legacy.py" not in again["files"]
    assert cache.manifest("demo", "1.0", project.selection()) == again
    project.pip_python = "3.10"  # another wheel of the release may be chosen: its manifest is not that one's
    fetch_pypi(project, "1.0", cache, download)
    assert calls == ["1.0", "1.0", "1.0"]


def test_fetch_git_reads_tags(git_repo: Path, tmp_path: Path) -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["gitproj"]
    manifest = fetch_git(project, "v1.0.0", git_repo, Cache(tmp_path))
    assert sorted(manifest["files"]) == ["router/lib.rs", "router/serve.go", "server/cli.py"]
    with pytest.raises(fetch_module.FetchError):
        fetch_git(project, "v9.9.9", git_repo, Cache(tmp_path))


def test_a_partial_mirror_is_read_only_when_it_holds_every_harvested_file(git_repo: Path, tmp_path: Path) -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["gitproj"]
    (git_repo / "weights.bin").write_bytes(b"\0" * 100)
    _git(git_repo, "add", "weights.bin")
    _git(git_repo, "commit", "-q", "-m", "weights")
    _git(git_repo, "tag", "v1.2.0")

    def drop(path: str) -> None:  # the object gone, as in a mirror that left its largest files out
        blob = subprocess.run(["git", "-C", str(git_repo), "rev-parse", f"v1.2.0:{path}"], capture_output=True, text=True, check=True).stdout.strip()
        (git_repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()

    drop("weights.bin")  # not a harvested file: left out
    assert sorted(fetch_git(project, "v1.2.0", git_repo, Cache(tmp_path / "a"))["files"]) == ["router/lib.rs", "router/serve.go", "server/cli.py"]
    drop("router/lib.rs")  # a harvested file: the release cannot be read, rather than read in part
    with pytest.raises(fetch_module.FetchError, match="router/lib.rs is not in the clone"):
        fetch_git(project, "v1.2.0", git_repo, Cache(tmp_path / "b"))


def test_a_git_project_needs_its_mirror(workspace, capsys) -> None:
    ws = workspace
    assert main(["harvest", "gitproj", "--cache", str(ws.cache), "--config", str(ws.config), "--out", str(ws.catalog)]) == 1
    assert "--git example-org/gitproj=PATH" in capsys.readouterr().err


def test_harvest_some_releases_of_one_project(workspace) -> None:
    ws = workspace
    assert _harvest(ws, "demo", "--releases", "1.2", "1.3") == 0
    assert [r["version"] for r in read_releases(ws.catalog)["demo"]] == ["1.2", "1.3"]
    assert main(["harvest", "--releases", "1.0", "--config", str(ws.config)]) == 2
    assert main(["harvest", "nope", "--config", str(ws.config)]) == 2


def test_new_releases_extend_the_catalog(workspace, monkeypatch) -> None:
    ws = workspace
    assert _harvest(ws, "demo", "--releases", "1.0", "1.1") == 0
    monkeypatch.setattr("generator.harvest.run.pypi_versions", lambda project: ["1.3", "1.2", "1.1", "1.0", "2.0rc1"])
    assert _harvest(ws, "demo", "--new") == 0
    incremental = (ws.catalog / "demo.jsonl").read_bytes()
    assert _harvest(ws, "demo", "--releases", "1.0", "1.1", "1.2", "1.3") == 0
    assert (ws.catalog / "demo.jsonl").read_bytes() == incremental  # the same catalog as every release at once
    assert '"1.2", "1.3"' in ws.config.read_text() and "2.0rc1" not in ws.config.read_text()


def test_a_respaced_template_keeps_its_id_and_gets_a_matching_pattern() -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["demo"]
    fold = Fold(project)
    fold.add_release("1.0", [("demo/a.py", Site("vocab does not have a  SEP token, reranking will not work", "log", 1, "", "f", None, "warning"))])
    fold.add_release("1.1", [("demo/a.py", Site("vocab does not have a SEP token, reranking will not work", "log", 1, "", "f", None, "warning"))])
    (entry,) = fold.entries.values()
    assert entry.releases == [["1.0", "1.1"]]
    assert compile_pattern(entry.pattern).search(entry.template)


def test_add_releases_to_config_keeps_comments() -> None:
    text = "# top\nprojects:\n  a:\n    repo: x/y\n    releases: [\"1\"]\n  b:\n    releases: [\"2\"]  # b's\n"
    assert add_releases_to_config(text, "b", ["3", "4"]) == text.replace('["2"]', '["2", "3", "4"]')


def test_verify_sources_catalog_reextracts_entries(workspace, monkeypatch, capsys) -> None:
    ws = workspace
    assert _harvest(ws, "demo") == 0 and _harvest(ws, "gitproj") == 0
    monkeypatch.setattr("generator.harvest.verify.CATALOG_ROOT", ws.catalog)
    assert main(["verify-sources", "--catalog", "--sample", "0", "--cache", str(ws.cache)]) == 0
    out = capsys.readouterr().out
    # every entry of every language (Python, Rust and Go) re-extracted where the catalog says
    assert f"{len(_entries(ws, 'demo')) + len(_entries(ws, 'gitproj'))} catalog entries re-extracted: " in out
    assert "found at every recorded file and line" in out and " 0 not cached" in out
    path = ws.catalog / "demo.jsonl"
    lines = path.read_text().splitlines()
    entry = json.loads(lines[0])
    entry["sites"][-1]["line"] += 7
    path.write_text("\n".join([json.dumps(entry, sort_keys=True, separators=(",", ":"))] + lines[1:]) + "\n")
    assert main(["verify-sources", "--catalog", "--sample", "0", "--cache", str(ws.cache)]) == 1
    assert "CAT101" in capsys.readouterr().out
    assert main(["verify-sources", "--catalog", "--sample", "3", "--seed", "1", "--cache", str(ws.cache / "empty")]) == 0
    assert "CAT102" in capsys.readouterr().out


def test_verify_sources_catalog_fetches_what_the_cache_lacks_with_release(workspace, monkeypatch, capsys) -> None:
    ws = workspace
    assert _harvest(ws, "demo") == 0 and _harvest(ws, "gitproj") == 0
    monkeypatch.setattr("generator.harvest.verify.CATALOG_ROOT", ws.catalog)
    fresh = ["verify-sources", "--catalog", "--sample", "0", "--cache", str(ws.cache / "fresh"), "--git", f"example-org/gitproj={ws.git}"]
    assert main(fresh) == 0
    out = capsys.readouterr().out
    assert "CAT102" in out and "(--release fetches them)" in out
    assert main([*fresh, "--release"]) == 0
    out = capsys.readouterr().out
    assert "CAT102" not in out and " 0 not cached" in out and "found at every recorded file and line" in out
    assert list((ws.cache / "fresh" / "releases" / "demo").glob("*.json"))  # fetched into the cache asked for


def test_stats_and_links(workspace, capsys) -> None:
    ws = workspace
    assert _harvest(ws, "demo") == 0
    capsys.readouterr()
    data = Path(__file__).parent / "fixtures" / "valid"
    links_file = ws.catalog / "links.json"
    assert main(["stats", "--data", str(data), "--catalog", str(ws.catalog), "--links", str(links_file)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split()[:4] == ["project", "releases", "templates", "user"]
    demo_row = next(l for l in out.splitlines() if l.startswith("demo"))
    assert demo_row.split()[1] == "4"
    assert json.loads(links_file.read_text()) == {}
    record = SimpleNamespace(id="demo/port", repo="Example-Org/Engine", error=SimpleNamespace(examples=[SimpleNamespace(text="ValueError: Port 80 is already in use by another server")], message="Port {} is already in use by another server"))
    catalogs = {"demo": read_catalog(ws.catalog / "demo.jsonl")}
    projects = parse_config(__import__("yaml").safe_load(CONFIG))
    links = link_records([record], catalogs, projects)
    assert links == {"demo/port": [entry_id("demo", "Port {} is already in use by another server")]}
    # an entry too generic to explain a record ("in use": fewer than MIN_STABLE fixed characters) links to none
    generic = {**catalogs["demo"][0], "id": "demo/00000000000000ff", "literal": "in use", "pattern": "in use", "specificity": 6}
    assert link_records([record], {"demo": catalogs["demo"] + [generic]}, projects) == links
    row = next(r for r in project_stats([record], catalogs, projects, read_releases(ws.catalog), links) if r.project == "demo")
    assert (row.records, row.linked_user, row.share) == (1, 1, 1 / row.user)


def test_a_record_belongs_to_one_of_two_projects_from_one_repository(workspace) -> None:
    """sglang and sgl-kernel come from one repository: a record is its folder's project, else the first listed."""
    ws = workspace
    assert _harvest(ws, "demo") == 0
    doc = __import__("yaml").safe_load(CONFIG)
    doc["projects"] = {"demo-ops": {**doc["projects"]["native"], "repo": "Example-Org/Engine"}, **doc["projects"]}
    projects = parse_config(doc)
    catalogs = {"demo": read_catalog(ws.catalog / "demo.jsonl"), "demo-ops": []}
    record = SimpleNamespace(id="demo/port", repo="example-org/engine", error=SimpleNamespace(examples=[SimpleNamespace(text="ValueError: Port 80 is already in use by another server")], message="Port {} is already in use by another server"))
    other = SimpleNamespace(id="engine/other", repo="example-org/engine", error=SimpleNamespace(examples=[], message="Port {} is already in use by another server"))
    links = link_records([record, other], catalogs, projects)
    assert links == {"demo/port": [entry_id("demo", "Port {} is already in use by another server")]}
    rows = {r.project: r for r in project_stats([record, other], catalogs, projects, read_releases(ws.catalog), links)}
    assert (rows["demo"].records, rows["demo"].linked_user, rows["demo-ops"].records) == (1, 1, 1)


def _symbols(ws, *extra: str) -> int:
    return main(["symbols", *extra, "--cache", str(ws.cache), "--config", str(ws.config), "--out", str(ws.catalog), "--jobs", "1"])


def test_symbols_index_the_python_projects_releases_and_continue_with_new_ones(workspace, capsys) -> None:
    ws = workspace
    assert _harvest(ws) == 0, capsys.readouterr()
    assert _symbols(ws, "demo", "--releases", "1.0", "1.1", "1.2") == 0, capsys.readouterr()
    path = ws.catalog / "symbols" / "demo.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0] == {"format": 1, "packages": ["demo"], "pip": "demo-engine", "project": "demo", "releases": ["1.0", "1.1", "1.2"]}
    modules = {line["module"]: line for line in lines[1:]}
    assert "demo.tests.test_x" not in modules and "demo.vendored.lib" not in modules  # skipped as the catalog skips them
    assert modules["demo.legacy"]["in"] == "0-1" and modules["demo.worker.worker"]["in"] == "2"
    assert modules["demo.config"]["functions"] == {"parse": {"in": "", "params": {"k": ""}}}
    # --new adds the releases projects.yaml lists after the index's last: the same index as one built at once
    assert _symbols(ws, "demo", "--new") == 0, capsys.readouterr()
    continued = path.read_bytes()
    assert _symbols(ws, "demo") == 0
    assert path.read_bytes() == continued
    assert json.loads(continued.decode().split("\n", 1)[0])["releases"] == ["1.0", "1.1", "1.2", "1.3"]
    assert _symbols(ws, "demo", "--new") == 0 and "the index has every release" in capsys.readouterr().out
    assert _symbols(ws, "demo", "--new", "--releases", "1.0") == 2
    assert not (ws.catalog / "symbols" / "native.jsonl").exists()  # no Python: no index


def test_guides_are_kept_where_the_site_is_unchanged_and_read_again_when_asked(workspace, capsys) -> None:
    ws = workspace
    assert _harvest(ws, "demo") == 0
    path = ws.catalog / "demo.jsonl"
    before = path.read_bytes()
    args = ["guides", "demo", "--cache", str(ws.cache), "--config", str(ws.config), "--out", str(ws.catalog)]
    capsys.readouterr()
    assert main(args) == 0
    # the guide kept; the entry the code gives nothing for is read again (it has no guide to keep)
    assert "demo: 1 of 2 user-facing entries have a guide (1 read)" in capsys.readouterr().out
    assert path.read_bytes() == before
    assert main([*args, "--again"]) == 0
    assert "(2 read)" in capsys.readouterr().out and path.read_bytes() == before  # read again: the same guides
    assert main(["guides", "nope", "--config", str(ws.config)]) == 2


def test_two_processes_write_the_catalog_one_would_and_a_report_per_project(workspace, capsys, tmp_path) -> None:
    ws = workspace
    assert main(["harvest", "demo", "--jobs", "1", "--cache", str(tmp_path / "one"), "--config", str(ws.config), "--out", str(ws.catalog)]) == 0
    one = (ws.catalog / "demo.jsonl").read_bytes()
    capsys.readouterr()
    assert main(["harvest", "demo", "--jobs", "2", "--cache", str(tmp_path / "two"), "--config", str(ws.config), "--out", str(ws.catalog)]) == 0
    out = capsys.readouterr().out
    assert (ws.catalog / "demo.jsonl").read_bytes() == one
    entries = len(one.splitlines())
    assert f"demo: 4 releases read, 0 not fetched, 0 files skipped, {entries} entries (2 user-facing), 0 dropped; " in out
    assert re.search(r"0 dropped; \d+\.\d s in all, fetch \d+\.\d s, extract \d+\.\d s in the fold", out)
    assert len(list((tmp_path / "two" / "releases" / "demo").glob("*.json"))) == 4  # both halves in the cache


def test_a_statement_twice_in_one_file_is_two_sites_that_each_move() -> None:
    project = parse_config(__import__("yaml").safe_load(CONFIG))["demo"]
    fold = Fold(project)
    stmt = 'raise ValueError("The prompt is longer than the model context")'

    def sites(*lines: int):
        return [("demo/engine.py", Site("The prompt is longer than the model context", "raise", n, stmt, "check", "ValueError")) for n in lines]

    fold.add_release("1.0", sites(5, 9))
    fold.add_release("1.1", sites(6, 10))
    fold.add_release("1.2", sites(6))
    (entry,) = fold.entries.values()
    got = [(s["from"], s["to"], s["line"], s.get("lines")) for s in entry.sites]
    assert got == [("1.0", "1.1", 10, [["1.0", 9], ["1.1", 10]]), ("1.0", "1.2", 6, [["1.0", 5], ["1.1", 6]])]
    assert newest_site(entry.sites)["line"] == 6


def test_a_matrix_harvest_merged_is_the_harvest_of_every_project_at_once(workspace, monkeypatch, tmp_path, capsys) -> None:
    ws = workspace
    ws.config.write_text(CONFIG.replace('["1.0", "1.1", "1.2", "1.3"]', '["1.0", "1.1"]').replace('["v1.0.0", "v1.1.0"]', '["v1.0.0"]'))
    assert _harvest(ws, "demo") == 0 and _harvest(ws, "gitproj") == 0
    monkeypatch.setattr("generator.harvest.run.pypi_versions", lambda project: ["1.3", "1.2", "1.1", "1.0"])

    def copy(to: Path) -> Path:
        shutil.copytree(ws.catalog, to)
        return to

    def new(root: Path, *projects: str) -> None:
        assert main(["harvest", *projects, "--new", "--cache", str(ws.cache), "--git", f"example-org/gitproj={ws.git}",
                     "--config", str(root / "projects.yaml"), "--out", str(root)]) == 0

    at_once = copy(tmp_path / "at-once")
    new(at_once, "demo", "gitproj")
    parts = []
    for slug in ("demo", "gitproj"):  # one job each, as the weekly workflow's matrix runs them
        job = copy(tmp_path / f"job-{slug}")
        new(job, slug)
        part = tmp_path / f"part-{slug}"
        part.mkdir()
        for name in (f"{slug}.jsonl", "releases.json", "projects.yaml"):
            shutil.copyfile(job / name, part / name)
        parts.append(part)
    merged = copy(tmp_path / "merged")
    before = {p.name: p.read_bytes() for p in merged.iterdir() if p.is_file()}
    capsys.readouterr()
    assert main(["harvest-merge", *map(str, parts), "--out", str(merged)]) == 0
    assert "demo: merged, 2 new release(s): 1.2, 1.3" in capsys.readouterr().out
    got = {p.name: p.read_bytes() for p in merged.iterdir() if p.is_file()}
    assert got == {p.name: p.read_bytes() for p in at_once.iterdir() if p.is_file()} and got != before

    # a part is untrusted: refused with why, and nothing written
    shutil.copyfile(parts[1] / "gitproj.jsonl", parts[0] / "gitproj.jsonl")
    assert main(["harvest-merge", str(parts[0]), "--out", str(ws.catalog)]) == 1
    assert "one project's <project>.jsonl, not 2" in capsys.readouterr().err
    (parts[0] / "gitproj.jsonl").unlink()
    (parts[0] / "projects.yaml").write_text(CONFIG.replace('["1.0", "1.1", "1.2", "1.3"]', '["0.9", "1.0"]'))
    untouched = {p.name: p.read_bytes() for p in ws.catalog.iterdir() if p.is_file()}
    assert main(["harvest-merge", str(parts[1]), str(parts[0]), "--out", str(ws.catalog)]) == 1
    assert "do not continue the catalog's" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in ws.catalog.iterdir() if p.is_file()} == untouched
    (parts[0] / "demo.jsonl").rename(parts[0] / "elsewhere.jsonl")
    assert main(["harvest-merge", str(parts[0]), "--out", str(ws.catalog)]) == 1
    assert "'elsewhere' is not a project" in capsys.readouterr().err
