"""TGI's launcher flags: the clap structs' fields read from Rust source (generator/harvest/extract_clap.py), the
registries-only index of a project without a pip package, and the answers to clap's `unexpected argument` lines.

tests/fixtures/symbols/tgi.jsonl holds four real releases (see tests/fixtures/symbols/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.bundle.drift import drift_answers
from generator.catalog.symbols import SymbolIndex, read_index
from generator.harvest.config import Project
from generator.harvest.extract_clap import clap_flags
from generator.harvest.extract_compared import compared_strings
from generator.harvest.symbols import FLAGS, Fold, header
from generator.match.drift import asks

SYMBOLS = Path(__file__).parent / "fixtures" / "symbols"
RUST = b'''
use clap::Parser;

#[derive(Parser, Debug)]
#[clap(author, version, about, long_about = None)]
struct Args {
    /// The name of the model to load.
    #[clap(default_value = "bigscience/bloom-560m", long, env)]
    model_id: String,
    #[clap(long, env)]
    max_input_tokens: Option<usize>,
    #[clap(long = "renamed-flag", env)]
    old_name: bool,
    #[arg(long, value_parser = parse("long = \\"nested\\""), alias = "old-alias")]
    clap_four: u32,
    #[arg(short, env)]
    short_only: bool,
    /// positional: no `long`
    positional: String,
    #[clap(default_value = "2", value_enum, long)]
    r#type: u8,
    #[serde(rename = "long")]
    #[clap(env)]
    not_a_flag: u8,
}

struct Other {
    #[clap(long)]
    elsewhere: u8,
}
'''
TGI_LOG = "$ docker run ghcr.io/huggingface/text-generation-inference:1.4.5 --max-input-tokens 4000\n"


def test_the_clap_fields_with_long_are_the_flags():
    assert clap_flags(RUST, {"Args"}) == ["--clap-four", "--max-input-tokens", "--model-id", "--old-alias", "--renamed-flag", "--type"]
    assert clap_flags(RUST, {"Other"}) == ["--elsewhere"]
    assert clap_flags(RUST, {"Missing"}) == []


def test_a_project_without_a_pip_package_gets_a_registries_only_index():
    project = Project(slug="tgi", repo="o/tgi", source="git", languages=["python", "rust"], releases=["v1", "v2"],
                      include=["server/text_generation_server/", "router/", "launcher/"],
                      clap_structs=[{"path": "launcher/src/main.rs", "struct": "Args"}])
    head = header(project, project.releases)
    assert head["packages"] == [] and head["pip"] is None  # no `server` or `router` claimed: import lines are never TGI's
    fold = Fold(project, project.releases)
    fold.add_keys(0, FLAGS, set(clap_flags(b"struct Args { #[clap(long)] max_input_length: u8 }", {"Args"})))
    fold.add_keys(1, FLAGS, set(clap_flags(b"struct Args { #[clap(long)] max_input_tokens: u8 }", {"Args"})))
    assert fold.lines() == [{"keys": {"--max-input-length": "0", "--max-input-tokens": "1"}, "registry": "flags"}]


def test_the_configured_tgi_index_is_registries_only():
    from generator.harvest.config import load_config

    tgi = load_config()["tgi"]
    assert tgi.package is None and tgi.clap_structs == [{"path": "launcher/src/main.rs", "struct": "Args"}]
    lines = [json.loads(line) for line in (SYMBOLS / "tgi.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines[0]["packages"] == [] and lines[0]["pip"] is None
    assert [line.get("registry") for line in lines[1:]] == ["flags", "model_types"]
    assert tgi.compared == {"model_types": [{"path": "server/text_generation_server/models/__init__.py", "name": "model_type"}]}


@pytest.mark.parametrize("line", ["error: unexpected argument '--max-input-tokens' found",
                                  "error: Found argument '--max-input-tokens' which wasn't expected, or isn't valid in this context"])
def test_clap_lines_are_asked_of_tgi_only_when_the_log_names_it(line):
    assert asks(line) == []  # other Rust programs print the same words
    (ask,) = asks(TGI_LOG + line)
    assert (ask.shape, ask.registry, ask.project, ask.keys) == ("flag", "flags", "tgi", ("--max-input-tokens",))


def test_an_added_flag_says_the_releases_to_run_and_no_pip_install():
    tgi = {"tgi": read_index(SYMBOLS / "tgi.jsonl")}
    (item,) = drift_answers(TGI_LOG + "error: unexpected argument '--max-input-tokens' found\n", tgi)
    (answer,) = item["candidates"]
    assert answer["verdict"] == "added" and "install" not in answer
    assert answer["text"]["en"] == ("the flag --max-input-tokens was added in tgi v2.0.0 (v1.4.5, the release searched before it, lacks it). "
                                    "Every release from v2.0.0 to v3.3.7 (the newest searched) has it. tgi is not installed with pip: "
                                    "run an image (or a build) of a release that has it: v2.0.0–v3.3.7. "
                                    "Your tgi v1.4.5 does not have it.")  # the image's tag, 1.4.5, is the release v1.4.5
    assert "pip install" not in answer["text"]["zh"] and "不是用 pip 安装的" in answer["text"]["zh"]


def test_a_removed_flag_and_the_installed_release():
    tgi = {"tgi": read_index(SYMBOLS / "tgi.jsonl")}
    line = "text-generation-launcher\nerror: Found argument '--enable-cuda-graphs' which wasn't expected, or isn't valid in this context"
    (answer,) = drift_answers(line, tgi, {"tgi": "v2.0.0"})[0]["candidates"]
    assert answer["verdict"] == "removed" and answer["installed"] == {"release": "v2.0.0", "has": False}
    assert "run an image (or a build) of a release that has it: v1.4.5." in answer["text"]["en"]
    (answer,) = drift_answers(line.replace("cuda-graphs", "cuda-graphs=1"), tgi, {"tgi": "v1.4.5"})[0]["candidates"]
    assert answer["installed"]["has"] is True and "the image's tag" in answer["text"]["en"] and "pip show" not in answer["text"]["en"]


def test_a_dispatch_written_as_tests_is_a_registry_of_the_strings_compared():
    src = b"""import enum
class ModelType(enum.Enum):
    LLAMA = {"type": "llama", "name": "Llama"}
    GEMMA3 = {"type": "gemma3", "multimodal": True}
    OTHER = {"name": "no type"}
def get_model(model_type, config):
    if model_type == LLAMA or model_type == "phi-msft":
        pass
    elif model_type in ["RefinedWeb", "falcon", GEMMA3]:
        pass
    elif model_type in modeling_auto.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES or config.model_type == "ignored":
        pass
    elif other == "not it" or model_type != "t5" or model_type == OTHER:
        pass
    raise ValueError(f"Unsupported model type {model_type}")
"""
    assert compared_strings(src, "model_type") == {"llama", "phi-msft", "RefinedWeb", "falcon", "gemma3", "t5"}
    with pytest.raises(SyntaxError):
        compared_strings(b"if (:", "model_type")


UNSUPPORTED = ("  File \"/opt/conda/lib/python3.11/site-packages/text_generation_server/models/__init__.py\", line 1797, in get_model\n"
               "    raise ValueError(f\"Unsupported model type {{model_type}}\")\nValueError: Unsupported model type {key}\n")


def test_a_model_type_tgi_does_not_serve_says_which_images_do():
    tgi = {"tgi": read_index(SYMBOLS / "tgi.jsonl")}
    log = "$ docker run ghcr.io/huggingface/text-generation-inference:2.0.0 --model-id google/gemma-3-4b-it\n" + UNSUPPORTED.format(key="gemma3")
    (answer,) = drift_answers(log, tgi)[0]["candidates"]
    assert answer["symbol"] == "model type 'gemma3'" and answer["verdict"] == "added" and "install" not in answer
    assert answer["installed"] == {"release": "v2.0.0", "has": False}
    assert "run an image (or a build) of a release that has it: v3.3.7." in answer["text"]["en"]
    (none,) = drift_answers(UNSUPPORTED.format(key="my_model"), tgi)[0]["candidates"]
    assert none["verdict"] == "absent" and none["text"]["en"].startswith("No release of tgi from v1.4.0 to v3.3.7 has model type 'my_model'.")
    assert asks("ValueError: Unsupported model type gemma3") == []  # other servers say the same words: only a log that names TGI


def test_an_argparse_line_is_not_asked_of_tgi():
    def index(project, pip):
        head = {"format": 1, "packages": [pip] if pip else [], "pip": pip, "project": project, "releases": ["1", "2"]}
        return SymbolIndex([head, {"registry": "flags", "keys": {"--max-input-tokens": "1"}}])

    both = {"tgi": index("tgi", None), "vllm": index("vllm", "vllm")}
    (item,) = drift_answers("api_server.py: error: unrecognized arguments: --max-input-tokens", both)
    assert [c["project"] for c in item["candidates"]] == ["vllm"]
