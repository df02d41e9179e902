"""Version-drift answers: the symbol index (extraction, fold, reader) and the answers drawn from it.

The fixture indexes (tests/fixtures/symbols) were built from real releases' artifacts with
`errdex symbols PROJECT --releases ... --modules ...` (see tests/fixtures/symbols/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.bundle.drift import drift_answers
from generator.catalog.symbols import parse_ranges, read_index, runs
from generator.harvest.config import Project
from generator.harvest.extract_auto import auto_class_keys
from generator.harvest.extract_symbols import MAX_SYMBOLS, TooMany, absolute, module_name, python_symbols
from generator.harvest.symbols import Fold, ranges
from generator.match.drift import asks

FIXTURES = Path(__file__).parent / "fixtures"
SYMBOLS = FIXTURES / "symbols"


@pytest.fixture(scope="module")
def indexes():
    return {i.project: i for i in (read_index(p) for p in sorted(SYMBOLS.glob("*.jsonl")))}


def _one(text, indexes, versions=None):
    found = drift_answers(text, indexes, versions or {})
    assert len(found) == 1, found
    assert len(found[0]["candidates"]) == 1, found
    return found[0]["candidates"][0]


# -- the shapes: one conformance fixture --

CASES = json.loads((FIXTURES / "drift-conformance.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", CASES, ids=[c["line"][:50] for c in CASES])
def test_shapes_read_what_the_fixture_says(case):
    lines = case.get("context", []) + [case["line"]]
    found = [a for a in asks("\n".join(lines)) if a.line == len(lines)]
    if case["expect"] is None:
        assert found == []
        return
    assert len(found) == 1
    got, want = found[0], case["expect"]
    assert got.shape == want["shape"]
    for field in ("module", "name", "cls", "func", "registry"):
        assert getattr(got, field) == want.get(field, ""), field
    assert list(got.keys) == want.get("keys", [])
    assert got.text and got.text in case["line"]  # what the shape matched, on the line itself


def test_a_line_of_megabytes_is_read_only_so_far():
    line = "x" * 3_000_000 + " cannot import name 'a' from 'b'"
    assert asks(line) == []


# -- extraction --

def test_asks_are_read_where_their_lines_are_in_a_long_log():
    filler = "INFO engine step done\n" * 5000
    text = filler + "ModuleNotFoundError: No module named 'vllm.worker.x'\n" + filler + "ImportError: cannot import name 'LLM' from 'vllm'"
    got = asks(text)
    assert [(a.shape, a.line, a.module) for a in got] == [("module", 5001, "vllm.worker.x"), ("import", 10002, "vllm")]
    assert asks(filler) == [] and asks("") == []


def test_module_names_follow_import_rules():
    assert module_name("transformers/models/llama/modeling_llama.py") == "transformers.models.llama.modeling_llama"
    assert module_name("vllm/__init__.py") == "vllm"
    assert module_name("pkg/my-module.py") is None  # no import reaches it
    assert module_name("pkg/data.json") is None
    assert absolute("a.b.c", False, 1, "x") == "a.b.x"
    assert absolute("a.b", True, 1, "x") == "a.b.x"
    assert absolute("a.b.c", False, 2, None) == "a"
    assert absolute("a", False, 3, "x") is None


SOURCE = b'''
from typing import TYPE_CHECKING
from .sub import *
from . import tools as t
import os.path
_import_structure = {"configuration_x": ["XConfig"], "models.y": []}
_import_structure["modeling_x"] = ["XModel"]
_import_structure["tokenization_x"].extend(["XTokenizer", "XTokenizerFast"])
__all__ = ["exported"]
MODEL_TYPES = OrderedDict([("llama", "LlamaConfig"), ("qwen2", "Qwen2Config")])
ARCHS = {"LlamaForCausalLM": ("llama", "L"), **OTHER}
if TYPE_CHECKING:
    from .configuration_x import XConfig as Renamed
try:
    import torch
except ImportError:
    HAS_TORCH = False

class Cache(Base, metaclass=Meta):
    kind = "dynamic"
    def __init__(self, a, *args, b=1, **kwargs):
        self.key_cache = []
        if a:
            self.value_cache, self.extra = [], 1
    def get_max_length(self):
        return None
    @staticmethod
    def build(x, y):
        pass
    def __repr__(self):
        return ""

def helper(p, /, q, *, r):
    parser.add_argument("--max-model-len", "-m", type=int)
    parser.add_argument(f"--{name}")
    def inner(z):
        pass
'''


def test_python_symbols_reads_definitions_imports_lazy_structures_and_registries():
    got = python_symbols(SOURCE, "pkg/mod/__init__.py")
    names = set(got["names"])
    assert {"XConfig", "XModel", "XTokenizer", "XTokenizerFast", "configuration_x", "modeling_x", "models", "exported",
            "Renamed", "torch", "HAS_TORCH", "os", "t", "MODEL_TYPES", "ARCHS", "TYPE_CHECKING"} <= names
    assert "_import_structure" not in names and "__all__" not in names
    assert got["star"] == ["pkg.mod.sub"]  # relative to the package (an __init__.py)
    cache = got["classes"]["Cache"]
    assert cache["bases"] == ["pkg.mod.Base"]
    assert cache["attrs"] == ["extra", "key_cache", "kind", "value_cache"]
    assert cache["methods"]["__init__"] == ["**", "*args", "a", "b"]
    assert cache["methods"]["get_max_length"] == []
    assert cache["methods"]["build"] == ["x", "y"]  # a static method's first parameter is a parameter
    assert "__repr__" not in cache["methods"]
    assert got["functions"] == {"helper": ["p", "q", "r"]}  # the nested function is not the module's
    assert got["flags"] == ["--max-model-len"]
    assert got["keys"]["MODEL_TYPES"] == ["llama", "qwen2"] and got["keys"]["ARCHS"] == ["LlamaForCausalLM"]


def test_a_dataclass_init_takes_its_fields():
    src = b"""
from dataclasses import dataclass
import typing
@dataclass(frozen=True)
class Args:
    model: str = ""
    max_model_len: int = 0
    registry: typing.ClassVar[dict] = {}
class Plain:
    x: int = 0
"""
    got = python_symbols(src, "pkg/args.py")
    assert got["classes"]["Args"]["methods"]["__init__"] == ["max_model_len", "model"]
    assert "__init__" not in got["classes"]["Plain"]["methods"]


def test_relative_imports_resolve_against_the_module_not_the_package():
    got = python_symbols(b"from .utils import Base\nclass A(Base): pass\n", "pkg/models/a.py")
    assert got["classes"]["A"]["bases"] == ["pkg.models.utils.Base"]


def test_a_file_that_defines_too_many_names_is_refused_not_stored():
    src = ("\n".join(f"n{i} = 0" for i in range(MAX_SYMBOLS + 5))).encode()
    with pytest.raises(TooMany):
        python_symbols(src, "pkg/big.py")


@pytest.mark.parametrize("src", [b"def f(:\n", b"x = 1\x00\n"])
def test_an_unreadable_file_raises_what_says_why(src):
    with pytest.raises((SyntaxError, ValueError)):
        python_symbols(src, "pkg/bad.py")


# -- the fold and its ranges --

def test_ranges_are_runs_of_release_indexes_and_read_back():
    for mask in (0b1, 0b1110111, 0b1010, (1 << 140) - 1, 1 << 139):
        text = ranges(mask)
        assert parse_ranges(text, 0) == mask
    assert ranges(0b1110111) == "0-2,4-6"
    assert parse_ranges("", 0b101) == 0b101  # "": the enclosing name's releases
    assert runs(0b1101) == [(0, 0), (2, 3)]


def test_the_fold_keeps_each_symbol_with_the_releases_that_have_it():
    project = Project(slug="p", repo="o/p", source="pypi", languages=["python"], releases=["1", "2", "3"], package="p",
                      include=["p/"], registries={"model_types": [{"path": "p/auto.py", "variable": "TYPES"}]})
    v1 = {"p/a.py": python_symbols(b"class C:\n    def f(self, x): pass\n", "p/a.py"),
          "p/auto.py": python_symbols(b"TYPES = {'llama': 1}\n", "p/auto.py")}
    v2 = {"p/a.py": python_symbols(b"class C:\n    def f(self, x, y): pass\n", "p/a.py"),
          "p/auto.py": python_symbols(b"TYPES = {'llama': 1, 'qwen2': 2}\n", "p/auto.py")}
    v3 = {"p/auto.py": python_symbols(b"TYPES = {'qwen2': 2}\nOTHER = {'x': 1}\n", "p/auto.py")}
    fold = Fold(project, project.releases)
    for i, files in enumerate((v1, v2, v3)):
        for path, symbols in files.items():
            fold.add(i, path, symbols)
    lines = {line.get("module", line.get("registry")): line for line in fold.lines()}
    assert lines["p.a"]["in"] == "0-1"
    method = lines["p.a"]["classes"]["C"]["methods"]["f"]
    assert method["in"] == "" and method["params"] == {"x": "", "y": "1"}  # "": as long as its enclosing name
    assert lines["model_types"]["keys"] == {"llama": "0-1", "qwen2": "1-2"}  # OTHER is not a configured registry


def test_an_sdist_package_folder_names_modules_from_it() -> None:
    from generator.harvest.symbols import header, release_files
    project = Project(slug="tok", repo="o/tok", source="pypi", languages=["rust", "python"], releases=["1"], package="tok",
                      include=["src/", "bindings/python/py_src/tok/", "bindings/python/tools/"], python_root="bindings/python/py_src/")
    manifest = {"files": {"bindings/python/py_src/tok/__init__.py": "a", "bindings/python/py_src/tok/models/bpe.py": "b",
                          "bindings/python/tools/gen.py": "c", "src/lib.rs": "d"}}
    assert release_files(project, manifest) == [("tok/__init__.py", "a"), ("tok/models/bpe.py", "b")]
    assert [module_name(p) for p, _ in release_files(project, manifest)] == ["tok", "tok.models.bpe"]
    assert header(project, ["1"])["packages"] == ["tok"]
    project.python_root = ""
    assert header(project, ["1"])["packages"] == ["bindings", "src"]  # what the index said before: no importable name


def test_an_index_continued_with_newer_releases_is_the_index_built_at_once():
    from generator.harvest.symbols import header, load_fold

    project = Project(slug="p", repo="o/p", source="pypi", languages=["python"], releases=["1", "2", "3"], package="p", include=["p/"])
    sources = [b"class C:\n    def f(self, x): pass\nA = 1\n", b"class C:\n    def f(self, x, y): pass\n", b"class C:\n    def f(self, y): pass\nA = 2\n"]
    whole = Fold(project, project.releases)
    for i, src in enumerate(sources):
        whole.add(i, "p/a.py", python_symbols(src, "p/a.py"))
    first = Fold(project, project.releases[:2])
    for i, src in enumerate(sources[:2]):
        first.add(i, "p/a.py", python_symbols(src, "p/a.py"))
    continued = load_fold(project, [header(project, project.releases[:2]), *first.lines()])
    continued.releases.append("3")
    continued.add(2, "p/a.py", python_symbols(sources[2], "p/a.py"))
    assert continued.lines() == whole.lines()


# -- answers from the fixture indexes (real releases) --

def test_import_removed_names_the_release_that_removed_it_and_a_pin(indexes):
    c = _one("ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/x/site-packages/huggingface_hub/__init__.py)", indexes)
    assert c["project"] == "huggingface-hub" and c["verdict"] == "removed"
    assert c["has"] == [{"from": "0.20.0", "to": "0.25.2"}]
    assert c["install"] == "pip install 'huggingface_hub<0.26.0'"
    assert "removed in 0.26.0" in c["text"]["en"] and "0.26.0 中被移除" in c["text"]["zh"]


def test_import_added_gives_a_lower_bound_and_says_whether_the_installed_release_has_it(indexes):
    c = _one("ImportError: cannot import name 'HybridCache' from 'transformers'", indexes, {"transformers": "4.37.0"})
    assert c["verdict"] == "removed" and c["has"] == [{"from": "4.45.0", "to": "4.54.0"}]
    assert c["install"] == "pip install 'transformers>=4.45.0,<5.0.0'"
    assert c["installed"] == {"release": "4.37.0", "has": False}
    assert "4.37.0, the release searched before it, lacks it" in c["text"]["en"]


def test_module_shape(indexes):
    c = _one("ModuleNotFoundError: No module named 'transformers.modeling_layers'", indexes)
    assert c["verdict"] == "added" and c["install"] == "pip install 'transformers>=4.54.0'"


def test_attribute_follows_the_class_and_its_bases(indexes):
    c = _one("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", indexes)
    assert c["symbol"] == "transformers.cache_utils.DynamicCache.get_max_length"
    assert c["verdict"] == "removed" and c["install"] == "pip install 'transformers<4.49.0'"
    # a method DynamicCache inherits from Cache in every release searched
    inherited = _one("AttributeError: 'DynamicCache' object has no attribute 'get_seq_length'", indexes)
    assert inherited["verdict"] == "present"


def test_keyword_argument_of_a_dataclass_init(indexes):
    c = _one("TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'", indexes)
    assert c["verdict"] == "removed" and c["install"] == "pip install 'transformers<4.54.0'"
    assert drift_answers("TypeError: __init__() got an unexpected keyword argument 'evaluation_strategy'", indexes) == []


def test_model_type_registry_and_the_honest_limit(indexes):
    c = _one("ValueError: The checkpoint you are trying to load has model type `qwen2` but Transformers does not recognize this architecture.", indexes)
    assert c["verdict"] == "added" and c["install"] == "pip install 'transformers>=4.37.0'"
    none = _one("ValueError: The checkpoint you are trying to load has model type `foo_bar` but Transformers does not recognize this architecture.", indexes)
    assert none["verdict"] == "absent" and "install" not in none
    assert none["text"]["en"].startswith("No release of transformers from 4.36.2 to 5.0.0 has model type 'foo_bar'.")
    assert "trust_remote_code=True" in none["text"]["en"]


AUTO_LINE = "ValueError: Unrecognized configuration class <class 'transformers.models.{m}.configuration_{m}.{c}'> for this kind of AutoModel: {a}."


def test_an_auto_class_that_does_not_load_a_configuration_names_those_that_do(indexes):
    c = _one(AUTO_LINE.format(m="qwen2_vl", c="Qwen2VLConfig", a="AutoModelForCausalLM"), indexes)
    assert c["verdict"] == "absent" and c["symbol"] == "Qwen2VLConfig → AutoModelForCausalLM"
    assert c["elsewhere"] == ["AutoModel", "AutoModelForImageTextToText"]  # 5.0.0's: AutoModelForVision2Seq lost it in 4.54.0
    assert "is loaded by AutoModel, AutoModelForImageTextToText: use one of them" in c["text"]["en"]
    assert "trust_remote_code" not in c["text"]["en"]  # the configuration is transformers' own
    gone = _one(AUTO_LINE.format(m="qwen2_vl", c="Qwen2VLConfig", a="AutoModelForVision2Seq"), indexes)
    assert gone["verdict"] == "removed" and gone["install"] == "pip install 'transformers>=4.45.0,<4.54.0'"
    assert gone["elsewhere"] == ["AutoModel", "AutoModelForImageTextToText"]
    new = _one(AUTO_LINE.format(m="qwen3", c="Qwen3Config", a="AutoModelForCausalLM") + "\ntransformers==4.45.0", indexes)
    assert new["verdict"] == "added" and new["install"] == "pip install 'transformers>=4.54.0'" and new["installed"] == {"release": "4.45.0", "has": False}
    assert "elsewhere" not in new


def test_a_remote_configuration_no_release_maps_needs_its_code(indexes):
    line = "ValueError: Unrecognized configuration class <class 'transformers_modules.THUDM.chatglm3-6b.configuration_chatglm.ChatGLMConfig'> to build an AutoTokenizer."
    c = _one(line, indexes)
    assert c["verdict"] == "absent" and c["symbol"] == "ChatGLMConfig → AutoTokenizer" and "elsewhere" not in c
    assert "ChatGLMConfig is the model's own code (transformers_modules)" in c["text"]["en"]
    assert "trust_remote_code=True through the auto class its config.json's auto_map names" in c["text"]["en"]
    own = _one("ValueError: Unrecognized configuration class <class 'MyConfig'> to build an AutoTokenizer.", indexes)
    assert own["text"]["en"].endswith("The model needs its own code (trust_remote_code=True) or a library that supports it.")


def test_auto_class_keys_follow_the_tables_as_the_library_builds_them():
    conf = b"""from collections import OrderedDict
CONFIG_MAPPING_NAMES = OrderedDict([("llama", "LlamaConfig"), ("qwen2", "Qwen2Config"), ("odd", some_call())])
CONFIG_MAPPING_NAMES.update({"mlcd": "MLCDVisionConfig"})
CONFIG_MAPPING_NAMES = OrderedDict(**{"gpt-sw3": "GPT2Config"}, **CONFIG_MAPPING_NAMES)
"""
    model = b"""from .configuration_auto import CONFIG_MAPPING_NAMES
if TYPE_CHECKING:
    TOKENIZER_MAPPING_NAMES = OrderedDict()
else:
    TOKENIZER_MAPPING_NAMES = OrderedDict([("llama", ("LlamaTokenizer", None)), ("mlcd", None)])
MODEL_FOR_CAUSAL_LM_MAPPING_NAMES = OrderedDict([("llama", "LlamaForCausalLM"), ("gpt-sw3", "GPT2LMHeadModel"), ("odd", "X")])
MODEL_MAPPING_NAMES = {"qwen2": "Qwen2Model", **MODEL_FOR_CAUSAL_LM_MAPPING_NAMES}
MODEL_FOR_CAUSAL_LM_MAPPING = _LazyAutoMapping(CONFIG_MAPPING_NAMES, MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)
MODEL_MAPPING = _LazyAutoMapping(CONFIG_MAPPING_NAMES, MODEL_MAPPING_NAMES)
TOKENIZER_MAPPING = _LazyAutoMapping(CONFIG_MAPPING_NAMES, TOKENIZER_MAPPING_NAMES)
class AutoModelForCausalLM(_BaseAutoModelClass):
    _model_mapping = MODEL_FOR_CAUSAL_LM_MAPPING
class AutoModel(_BaseAutoModelClass):
    _model_mapping = MODEL_MAPPING
class TFAutoModel(_BaseAutoModelClass):
    _model_mapping = MODEL_MAPPING
class AutoTokenizer:
    pass
"""
    files = {"t/auto/configuration_auto.py": conf, "t/auto/modeling_auto.py": model}
    assert auto_class_keys(files, "Auto*", {"AutoTokenizer": "TOKENIZER_MAPPING"}) == {
        "AutoModelForCausalLM.LlamaConfig", "AutoModelForCausalLM.GPT2Config",
        "AutoModel.Qwen2Config", "AutoModel.LlamaConfig", "AutoModel.GPT2Config",
        "AutoTokenizer.LlamaConfig", "AutoTokenizer.MLCDVisionConfig"}  # not TFAutoModel (the glob), not "odd" (no literal)
    assert auto_class_keys(files, "Auto*") == auto_class_keys(files, "Auto*", {"AutoTokenizer": "TOKENIZER_MAPPING"}) - {
        "AutoTokenizer.LlamaConfig", "AutoTokenizer.MLCDVisionConfig"}
    with pytest.raises(SyntaxError):
        auto_class_keys({**files, "t/auto/broken.py": b"def ("})


def test_remote_code_gets_the_pin_advice(indexes):
    log = ('  File "/root/.cache/huggingface/modules/transformers_modules/m/modeling_m.py", line 3, in <module>\n'
           "ImportError: cannot import name 'StaticCache' from 'transformers.cache_utils'")
    c = _one(log, indexes)
    assert "remote code" in c["text"]["en"] and "远程代码" in c["text"]["zh"]
    plain = _one("ImportError: cannot import name 'StaticCache' from 'transformers.cache_utils'", indexes)
    assert "remote code" not in plain["text"]["en"]


def test_the_installed_release_is_read_from_the_log(indexes):
    log = "- `transformers` version: 4.36.2\nImportError: cannot import name 'HybridCache' from 'transformers'"
    assert _one(log, indexes)["installed"] == {"release": "4.36.2", "has": False}
    log = "transformers==4.49.0\nImportError: cannot import name 'HybridCache' from 'transformers'"
    assert _one(log, indexes)["installed"]["has"] is True
    log = "transformers==9.9.9\nImportError: cannot import name 'HybridCache' from 'transformers'"
    assert _one(log, indexes)["installed"] == {"release": "9.9.9", "has": None}
    for named in ("/usr/lib/python3.11/site-packages/transformers-4.37.0.dist-info/METADATA",  # a path with the version
                  "  Downloading transformers-4.37.0-py3-none-any.whl (8.4 MB)"):  # a wheel's name
        log = named + "\nImportError: cannot import name 'HybridCache' from 'transformers'"
        assert _one(log, indexes)["installed"] == {"release": "4.37.0", "has": False}
    log = "/opt/transformers-4.37.0-rc1/x.py\nImportError: cannot import name 'HybridCache' from 'transformers'"
    assert "installed" not in _one(log, indexes)  # not a release's own name


def test_unknown_projects_and_names_outside_every_index_get_no_answer(indexes):
    assert drift_answers("ImportError: cannot import name 'x' from 'numpy'", indexes) == []
    assert drift_answers("AttributeError: 'NoneType' object has no attribute 'shape'", indexes) == []
    assert drift_answers("ImportError: cannot import name 'x' from 'numpy'", {}) == []


def test_a_class_several_modules_define_lists_each_candidate(indexes):
    from generator.catalog.symbols import SymbolIndex

    head = {"format": 1, "packages": ["p"], "pip": "p", "project": "p", "releases": ["1", "2"]}
    index = SymbolIndex([head, {"module": "p.a", "in": "0-1", "classes": {"C": {"in": "", "attrs": {"x": "0"}}}},
                         {"module": "p.b", "in": "0-1", "classes": {"C": {"in": "1"}}}])
    found = drift_answers("AttributeError: 'C' object has no attribute 'x'", {"p": index})
    assert [c["symbol"] for c in found[0]["candidates"]] == ["p.a.C.x", "p.b.C.x"]
    assert found[0]["note"]["en"] == "2 definitions fit; each is listed."


# -- the index is checked as the catalog is --

def _index_folder(tmp_path, lines, slug="p"):
    (tmp_path / "symbols").mkdir()
    path = tmp_path / "symbols" / f"{slug}.jsonl"
    path.write_text("".join(json.dumps(l, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n" for l in lines), encoding="utf-8")
    return path


HEAD = {"format": 1, "packages": ["p"], "pip": "p", "project": "p", "releases": ["1.0", "2.0"]}


def _codes(tmp_path, releases=("1.0", "2.0"), configured=("p",)):
    from generator.checks.catalogsymbols import check_symbols

    return [(f.code, f.pointer) for f in check_symbols(tmp_path, {"p": list(releases)}, set(configured))]


def test_the_fixture_indexes_pass_their_checks():
    from generator.checks.catalogsymbols import check_symbols_file

    for path in sorted(SYMBOLS.glob("*.jsonl")):
        releases = json.loads(path.read_text(encoding="utf-8").split("\n", 1)[0])["releases"]
        assert list(check_symbols_file(path, releases)) == []


def test_a_good_index_passes(tmp_path):
    _index_folder(tmp_path, [HEAD, {"module": "p", "in": "0-1", "names": {"x": "1"}}, {"registry": "flags", "keys": {"--max-len": ""}}])
    assert _codes(tmp_path) == []


@pytest.mark.parametrize("line, code", [
    ({"module": "p", "in": "0-1", "names": {"x\u202ey": ""}}, "CAT011"),  # a hidden character in a name
    ({"module": "p", "in": "0-1", "names": {"<script>": ""}}, "CAT011"),  # no identifier
    ({"module": "p", "in": "0-1", "names": {"x": "0-5"}}, "CAT012"),  # past the releases
    ({"module": "p", "in": "1-0"}, "CAT012"),  # backwards
    ({"module": "p", "in": "0,,1"}, "CAT011"),  # no ranges string
    ({"module": "p", "in": "0-1", "extra": 1}, "CAT011"),
    ({"registry": "model_types", "keys": {"a\nb": ""}}, "CAT011"),
])
def test_each_bad_line_is_a_finding(tmp_path, line, code):
    _index_folder(tmp_path, [HEAD, line])
    assert code in [c for c, _ in _codes(tmp_path)]


def test_ranges_are_judged_by_value_not_by_a_key_that_reads_like_one(tmp_path):
    """A line's ranges are read from its text at once, then from its objects only when one looks bad: a registry
    key that reads like a ranges string ("12", "0-") is a name, never a finding; a bad range deep in a class is
    found at its place."""
    _index_folder(tmp_path, [HEAD, {"registry": "flags", "keys": {"12": "", "0-": "1", "9-3": ""}}])
    assert _codes(tmp_path) == []
    deep = {"module": "p", "in": "0-1", "classes": {"C": {"in": "", "methods": {"m": {"in": "", "params": {"x": "0-7"}}}}}}
    (tmp_path / "deep").mkdir()
    path = _index_folder(tmp_path / "deep", [HEAD, deep])
    from generator.checks.catalogsymbols import check_symbols_file

    assert [(f.code, f.pointer) for f in check_symbols_file(path, ["1.0", "2.0"])] == [("CAT012", "/classes/C/methods/m/params/x")]


def test_header_order_and_project_are_checked(tmp_path):
    _index_folder(tmp_path, [HEAD, {"module": "p.b", "in": ""}, {"module": "p.a", "in": ""}])
    assert ("CAT011", "") in _codes(tmp_path)  # out of order
    assert ("CAT012", "/releases") in _codes(tmp_path, releases=("1.0", "2.0", "3.0"))
    assert ("CAT012", "") in _codes(tmp_path, configured=("q",))


def test_an_index_not_written_canonically_or_linked_is_a_finding(tmp_path):
    path = _index_folder(tmp_path, [HEAD])
    path.write_text(json.dumps(HEAD, indent=1).replace("\n", "") + "\n", encoding="utf-8")
    assert ("CAT011", "") in _codes(tmp_path)
    path.unlink()
    path.symlink_to(SYMBOLS / "huggingface-hub.jsonl")
    assert [c for c, _ in _codes(tmp_path)] == ["CAT011"]


def test_a_registry_grows_by_update_and_by_key_in_other_statements():
    src = b'from .auto_mappings import CONFIG_MAPPING_NAMES\nCONFIG_MAPPING_NAMES.update({"mlcd": "A"})\nCONFIG_MAPPING_NAMES["evolla"] = "B"\n'
    assert python_symbols(src, "t/auto/configuration_auto.py")["keys"] == {"CONFIG_MAPPING_NAMES": ["evolla", "mlcd"]}


def test_the_index_leaves_out_what_its_skip_names():
    from generator.harvest.symbols import release_files

    project = Project(slug="p", repo="o/p", source="pypi", languages=["python"], releases=["1"], package="p", include=["p/"],
                      symbol_skip=["p/utils/dummy_*"])
    manifest = {"files": {"p/utils/dummy_pt_objects.py": "a", "p/utils/hub.py": "b", "p/data.json": "c"}}
    assert release_files(project, manifest) == [("p/utils/hub.py", "b")]


def _index(releases, modules):
    from generator.catalog.symbols import SymbolIndex

    return SymbolIndex([{"format": 1, "packages": ["p"], "pip": "p", "project": "p", "releases": releases}, *modules])


def test_a_name_back_after_a_gap_installs_its_newest_run_and_a_moved_name_says_where_it_went():
    index = _index(["1", "2", "3", "4"], [
        {"module": "p", "in": "0-3", "names": {"helper": "0,3"}},
        {"module": "p.old", "in": "0-1", "functions": {"parse": {"in": ""}}},
        {"module": "p.util", "in": "2-3", "functions": {"parse": {"in": ""}}},
    ])
    (back,) = drift_answers("ImportError: cannot import name 'helper' from 'p'", {"p": index})[0]["candidates"]
    assert back["has"] == [{"from": "1", "to": "1"}, {"from": "4", "to": "4"}] and back["install"] == "pip install 'p>=4'"
    (moved,) = drift_answers("ImportError: cannot import name 'parse' from 'p.old'", {"p": index})[0]["candidates"]
    assert moved["verdict"] == "removed" and moved["elsewhere"] == ["p.util"]
    assert "In p 4, parse is importable from p.util." in moved["text"]["en"]


def test_a_modules_entry_classes_are_a_registry():
    got = python_symbols(b"class A: pass\nEntryClass = [A, B]\nlogger = log\n", "s/models/a.py")["keys"]
    assert got == {"EntryClass": ["A", "B"]}


def test_an_architecture_is_looked_up_in_the_server_the_frames_name():
    from generator.catalog.symbols import SymbolIndex

    def server(name):
        head = {"format": 1, "packages": [name], "pip": name, "project": name, "releases": ["1", "2"]}
        return SymbolIndex([head, {"registry": "architectures", "keys": {"FooForCausalLM": "1" if name == "sglang" else "0-1"}}])

    both = {"vllm": server("vllm"), "sglang": server("sglang")}
    line = "ValueError: Model architectures ['FooForCausalLM'] are not supported for now."
    assert drift_answers(line, both)[0]["candidates"][0]["project"] == "vllm"  # the message's own project
    frames = '  File "/venv/lib/python3.11/site-packages/sglang/srt/models/registry.py", line 9, in resolve\n' + line
    (answer,) = drift_answers(frames, both)[0]["candidates"]
    assert answer["project"] == "sglang" and answer["install"] == "pip install 'sglang>=2'"


def test_a_flags_class_gives_its_public_fields_as_flags():
    project = Project(slug="p", repo="o/p", source="pypi", languages=["python"], releases=["1"], package="p", include=["p/"],
                      flag_classes=["p.args.EngineArgs"])
    fold = Fold(project, project.releases)
    src = b"class EngineArgs:\n    max_model_len: int = 0\n    _api_process_count: int = 1\n"
    fold.add(0, "p/args.py", python_symbols(src, "p/args.py"))
    (flags,) = [line for line in fold.lines() if line.get("registry") == "flags"]
    assert flags["keys"] == {"--max-model-len": "0"}


def test_a_file_that_starts_with_a_byte_order_mark_is_read():
    assert python_symbols("\ufeffclass A:\n    pass\n".encode("utf-8"), "p/a.py")["classes"] == {"A": {"attrs": [], "bases": [], "methods": {}}}


def test_an_import_line_reads_only_its_projects_index(indexes):
    from generator.catalog.symbols import Indexes, header_meta

    read = []
    meta = {}
    for path in sorted(SYMBOLS.glob("*.jsonl")):
        info = header_meta(path)
        meta[info["project"]] = {"packages": info["packages"], "registries": info["registries"]}
    assert meta["transformers"] == {"packages": ["transformers"], "registries": ["auto_classes", "model_types"]}
    lazy = Indexes(meta, lambda project: (read.append(project), indexes[project])[1])
    found = drift_answers("ImportError: cannot import name 'cached_download' from 'huggingface_hub'", lazy)
    assert found[0]["candidates"][0]["verdict"] == "removed" and read == ["huggingface-hub"]
    drift_answers("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", lazy)
    assert read == ["huggingface-hub", "transformers"]  # a class name alone: every project is searched
