"""The paste page's drift answers (overrides/assets/javascripts/errdex-drift.js, reading the API's drift files,
generator/api/driftfiles.py) are the CLI's (generator/bundle/drift.py), field for field: both run on the same lines
over the same symbol indexes, in headless Chromium for the page's copy.

The fixture indexes (tests/fixtures/symbols) with every line of tests/test_drift.py's kinds and TGI's clap lines; the repository's own
indexes (data/catalog/symbols) with the 78 real lines of bench/drift (a data test)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.api.catalogmatch import shard_of
from generator.api.driftfiles import SHARDS, drift_documents, drift_files
from generator.bundle.drift import drift_answers
from generator.catalog.symbols import indexes as read_indexes
from generator.match.drift import SHAPES
from generator.routes import client_routes
from tests.conftest import serving

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "overrides" / "assets" / "javascripts"
FIXTURES = Path(__file__).parent / "fixtures"
CONFORMANCE = json.loads((FIXTURES / "drift-conformance.json").read_text(encoding="utf-8"))["cases"]

# Lines of every kind the fixture indexes answer (and some they cannot), with a release given or named in the log.
LINES: list[tuple[str, dict]] = [
    ("ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/usr/lib/python3/site-packages/huggingface_hub/__init__.py)", {}),
    ("ImportError: cannot import name 'cached_download' from 'huggingface_hub'\nhuggingface_hub==0.25.0", {}),
    ("ImportError: cannot import name 'cached_download' from 'huggingface_hub'", {"huggingface_hub": "0.20.0"}),
    ("ImportError: cannot import name 'HfFolder' from 'huggingface_hub'", {"huggingface-hub": "9.9.9"}),
    ("  Downloading transformers-4.37.0-py3-none-any.whl (8.4 MB)\n/x/site-packages/transformers-4.45.0.dist-info\n"
     "ImportError: cannot import name 'HybridCache' from 'transformers'", {}),
    ("ImportError: cannot import name 'no_such_name_anywhere' from 'huggingface_hub'", {}),
    ("ModuleNotFoundError: No module named 'transformers.modeling_layers'", {}),
    ("ModuleNotFoundError: No module named 'transformers.no_such_module'", {}),
    ("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?", {}),
    ("  File \"/x/site-packages/transformers/cache_utils.py\", line 1, in f\nAttributeError: 'DynamicCache' object has no attribute 'seen_tokens'", {}),
    ("AttributeError: module 'transformers' has no attribute 'Qwen3ForCausalLM'", {}),
    ("TypeError: DynamicCache.update() got an unexpected keyword argument 'cache_kwargs'", {}),
    ("TypeError: hf_hub_download() got an unexpected keyword argument 'resume_download'", {}),
    ("TypeError: __init__() got an unexpected keyword argument 'use_auth_token'", {}),
    ("ValueError: The checkpoint you are trying to load has model type `qwen3` but Transformers does not recognize this architecture.", {}),
    ("ValueError: The checkpoint you are trying to load has model type `nosuchmodel` but Transformers does not recognize this architecture.", {}),
    ("  File \"/m/transformers_modules/x/modeling_x.py\", line 3, in <module>\nImportError: cannot import name 'is_torch_fx_available' from 'transformers.utils.import_utils'", {}),
    # names that an object inherits in JavaScript are names like any other in Python
    ("ImportError: cannot import name 'constructor' from 'huggingface_hub'", {}),
    ("AttributeError: 'DynamicCache' object has no attribute '__proto__'", {}),
    ("AttributeError: 'DynamicCache' object has no attribute 'toString'", {}),
    ("TypeError: DynamicCache.update() got an unexpected keyword argument 'constructor'", {}),
    ("TypeError: hf_hub_download() got an unexpected keyword argument 'hasOwnProperty'", {}),
    ("ValueError: The checkpoint you are trying to load has model type `constructor` but Transformers does not recognize this architecture.", {}),
    # transformers' auto classes: the classes that load the configuration instead; a remote configuration; an installed release
    ("ValueError: Unrecognized configuration class <class 'transformers.models.qwen2_vl.configuration_qwen2_vl.Qwen2VLConfig'> for this kind of AutoModel: AutoModelForCausalLM.", {}),
    ("ValueError: Unrecognized configuration class <class 'transformers.models.qwen2_vl.configuration_qwen2_vl.Qwen2VLConfig'> for this kind of AutoModel: AutoModelForVision2Seq.", {"transformers": "4.49.0"}),
    ("ValueError: Unrecognized configuration class <class 'x.Qwen3Config'> for this kind of AutoModel: AutoModelForCausalLM.\ntransformers==4.45.0", {}),
    ("ValueError: Unrecognized configuration class <class 'transformers_modules.THUDM.chatglm3-6b.configuration_chatglm.ChatGLMConfig'> to build an AutoTokenizer.", {}),
    ("ValueError: Unrecognized configuration class <class 'x.constructor'> for this kind of AutoModel: AutoModel.", {}),
    # TGI's launcher (clap): a flag's releases to run, no pip install; the installed release given
    ("text-generation-launcher\nerror: unexpected argument '--max-input-tokens' found", {"tgi": "v1.4.5"}),
    ("text-generation-launcher\nerror: Found argument '--enable-cuda-graphs' which wasn't expected, or isn't valid in this context", {"tgi": "v1.4.5"}),
    ("ghcr.io/huggingface/text-generation-inference:2.0\nerror: unexpected argument '--no-such-flag' found", {"tgi": "v9"}),
    ("error: unexpected argument '--max-input-tokens' found", {}),  # no sign of TGI: no answer
    ("$ docker run ghcr.io/huggingface/text-generation-inference:2.0.0\n  File \"/x/text_generation_server/models/__init__.py\", line 9\n"
     "ValueError: Unsupported model type gemma3", {}),  # TGI's model types, the release read from the image's tag
    ("text_generation_server\nValueError: Unsupported model type constructor", {}),
    ("serve: error: unrecognized arguments: --max-input-tokens", {}),  # argparse's words are not TGI's
] + [("\n".join(c.get("context", []) + [c["line"]]), {}) for c in CONFORMANCE]


def _page_with_drift(folder: Path, files: dict[str, bytes]) -> None:
    """A folder a browser can load: the drift files under api/, the two scripts, and an empty page."""
    for rel, data in files.items():
        path = folder / "api" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in ("errdex-match-catalog.js", "errdex-drift.js"):
        shutil.copy(SCRIPTS / name, folder / name)
    # the worker's `execute` runs every pattern of the drift data there (budget, skip list, kill switch); here, plainly
    runner = "function execute(p, text, from) { p.re = p.re || new RegExp(p.source, p.flags); p.re.lastIndex = from; return p.re.exec(text); }"
    (folder / "index.html").write_text(f'<!doctype html><meta charset="utf-8"><script>{runner}</script><script src="errdex-match-catalog.js"></script>'
                                       '<script src="errdex-drift.js"></script>', encoding="utf-8")


def _browser_answers(browser, folder: Path, cases: list[tuple[str, dict]]) -> list:
    with serving(folder) as base:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(base + "index.html")
        got = page.evaluate("""async ([base, cases, routes]) => {
            driftSetup(base + routes.api_drift_index, base + routes.api_drift_shard, base + routes.api_drift_registry);
            const out = [];
            for (const [text, wanted] of cases) out.push(await driftAnswers(text, wanted));
            return out; }""", [base, cases, client_routes()])
        page.close()
    assert errors == []
    return got


def test_every_key_is_filed_in_its_shard_and_the_index_carries_the_rules(tmp_path):
    docs = drift_documents(read_indexes(FIXTURES / "symbols"))
    meta = docs["index"]
    assert meta["shapes"] == SHAPES and meta["shards"] == SHARDS
    assert sorted(meta["projects"]) == ["huggingface-hub", "tgi", "transformers"]
    assert meta["projects"]["tgi"]["pip"] is None and meta["projects"]["tgi"]["packages"] == []
    shards = {k: v for k, v in docs.items() if k.isdigit()}
    assert shards and all(shard_of(key, SHARDS) == int(n) for n, doc in shards.items() for key in doc)
    assert any(key.startswith("m:") for doc in shards.values() for key in doc)
    assert "transformers/model_types" in docs
    assert drift_files(tmp_path / "none") == {}  # no index: no files


@pytest.mark.browser
def test_the_page_gives_the_answers_the_cli_gives(browser, tmp_path):
    folder = FIXTURES / "symbols"
    _page_with_drift(tmp_path, drift_files(folder))
    want = [drift_answers(text, read_indexes(folder), wanted) for text, wanted in LINES]
    assert sum(bool(w) for w in want) >= 12  # the cases reach the index: answers to compare, not empty lists
    assert sum(bool(w) and w[0]["candidates"][0]["project"] == "tgi" for w in want) >= 5  # clap lines with the evidence
    assert {c["verdict"] for w in want for item in w for c in item["candidates"]} >= {"absent", "removed", "added", "present"}
    got = _browser_answers(browser, tmp_path, LINES)
    for (text, _), g, w in zip(LINES, got, want):
        assert g == w, text


@pytest.mark.data
@pytest.mark.browser
def test_the_page_gives_the_cli_answers_on_real_lines_over_the_real_indexes(browser, tmp_path):
    folder = ROOT / "data" / "catalog" / "symbols"
    lines = [json.loads(line) for line in (ROOT / "bench" / "drift" / "lines.jsonl").read_text(encoding="utf-8").splitlines()]
    cases = [("\n".join(filter(None, [item.get("context", "").rstrip("\n"), item["line"]])), {}) for item in lines]
    _page_with_drift(tmp_path, drift_files(folder))
    want = [drift_answers(text, read_indexes(folder), wanted) for text, wanted in cases]
    assert sum(bool(w) for w in want) >= 50
    got = _browser_answers(browser, tmp_path, cases)
    for (text, _), g, w in zip(cases, got, want):
        assert g == w, text
