"""A catalog entry's guide, read from the code: each guard kind, comments, docstrings, option tables, and hostile
text that costs only the guide."""

from __future__ import annotations

import textwrap

import pytest

from generator.harvest.guides import c_guide, python_guide
from generator.harvest.options import _option, clip, options_of, pick_options

PY = textwrap.dedent('''\
    import argparse
    from dataclasses import dataclass, field


    @dataclass
    class EngineArgs:
        max_model_len: int | None = None
        """Model context length."""
        block_size: int = field(default=16, metadata={"help": "Token block size."})
        swap_space: float = 4


    class ServerSettings:
        n_gpu_layers: int = Field(default=0, description="Layers to offload.")


    class Helper:
        not_an_option: int = 3


    def parser():
        p = argparse.ArgumentParser()
        p.add_argument("--max-model-len", type=int, default=None, help="Model context " "length.")
        p.add_argument("-q", "--quantization", default=None)
        p.add_argument("positional")


    def check(self, n):
        """Check the length.

        Details."""
        # the model cannot take more
        if self.max_model_len > n:
            raise ValueError(f"max_model_len {self.max_model_len} is too long (see --max-model-len)")
        elif n < 0:
            raise ValueError("negative")
        else:
            # block size must fit
            logger.warning("odd block size %d", self.block_size)
        try:
            load()
        except (OSError, KeyError):
            raise RuntimeError("load failed")
        assert n != 3, "three is not allowed"
        while n > 10:
            raise ValueError("too many")
        raise NotImplementedError("unguarded")
    ''')


def _line(text: str) -> int:
    return next(i for i, l in enumerate(PY.splitlines(), 1) if text in l)


def test_python_guards_of_each_kind() -> None:
    source = PY.encode()
    guide, names = python_guide(source, _line('is too long'))
    assert guide == {"guard": {"kind": "if", "source": "self.max_model_len > n"}, "comment": "the model cannot take more",
                     "doc": "Check the length."}
    assert names[0] == "max_model_len" and "max_model_len" in names  # from the test and the statement
    elif_guide, _ = python_guide(source, _line('"negative"'))
    assert elif_guide["guard"] == {"kind": "if", "source": "n < 0"}  # an elif is its own `if`
    else_guide, names = python_guide(source, _line("odd block size"))
    assert else_guide["guard"] == {"kind": "else", "source": "n < 0"} and else_guide["comment"] == "block size must fit"
    assert "block_size" in names
    assert python_guide(source, _line("load failed"))[0]["guard"] == {"kind": "except", "source": "(OSError, KeyError)"}
    assert python_guide(source, _line("three is not"))[0]["guard"] == {"kind": "assert", "source": "n != 3"}
    assert python_guide(source, _line('"too many"'))[0]["guard"] == {"kind": "while", "source": "n > 10"}
    unguarded, _ = python_guide(source, _line("unguarded"))
    assert unguarded == {"doc": "Check the length."}  # no guard: only what the code gives


def test_a_line_that_starts_no_statement_gives_nothing() -> None:
    assert python_guide(PY.encode(), _line("Details.")) == ({}, [])


def test_options_from_argparse_dataclasses_and_pydantic() -> None:
    rows = {(r["kind"], r.get("class"), r["name"]): r for r in options_of(PY.encode())}
    assert rows[("field", "EngineArgs", "max_model_len")] == {"kind": "field", "class": "EngineArgs", "name": "max_model_len",
                                                              "default": "None", "help": "Model context length.", "line": 7}
    assert rows[("field", "EngineArgs", "block_size")]["default"] == "16" and rows[("field", "EngineArgs", "block_size")]["help"] == "Token block size."
    assert "help" not in rows[("field", "EngineArgs", "swap_space")]
    assert rows[("field", "ServerSettings", "n_gpu_layers")]["help"] == "Layers to offload."
    assert rows[("flag", None, "max_model_len")] == {"kind": "flag", "name": "max_model_len", "flag": "--max-model-len", "default": "None",
                                                     "help": "Model context length.", "line": 23}
    assert rows[("flag", None, "quantization")]["flag"] == "--quantization"
    assert not any(r.get("class") == "Helper" for r in rows.values())  # not a configuration class
    assert options_of(b"x = 1\n") == []  # nothing to declare: not even parsed


def test_an_option_several_classes_declare_is_not_guessed() -> None:
    a = {"kind": "field", "name": "target", "class": "LoraConfig", "help": "h1", "path": "a/lora.py", "line": 1}
    b = {"kind": "field", "name": "target", "class": "IA3Config", "help": "h2", "path": "a/ia3.py", "line": 1}
    assert _option([a, b], "a/other.py") is None
    assert _option([a, b], "a/ia3.py") is b  # declared in the file that raises
    assert _option([a], "a/other.py") is a
    bare = {"kind": "field", "name": "target", "class": "LoraConfig", "path": "a/lora.py", "line": 1}
    assert _option([bare], "a/other.py") is None  # neither help nor default: nothing to show


CPP = textwrap.dedent('''\
    // Load one tensor of the model.
    static void load(int n, ggml_tensor * t) {
        GGML_ASSERT(t->ne[0] % 32 == 0 && "rows must be aligned");
        if (n > 3) {
            // only the first types are known
            GGML_ABORT("unsupported tensor type %d", n);
        } else {
            throw std::runtime_error("failed to open the model file");
        }
    }
    ''')

RUST = textwrap.dedent('''\
    /// Validate the request.
    fn validate(n: usize) -> Result<(), E> {
        if n > MAX {
            return Err(E::TooLong(n));
        }
        Ok(())
    }
    ''')


def test_c_and_rust_guards_and_comments() -> None:
    assert c_guide(CPP.encode(), 3, "cpp", "assert") == {"guard": {"kind": "assert", "source": 't->ne[0] % 32 == 0 && "rows must be aligned"'},
                                                         "doc": "Load one tensor of the model."}
    assert c_guide(CPP.encode(), 6, "cpp", "panic") == {"guard": {"kind": "if", "source": "n > 3"}, "comment": "only the first types are known",
                                                        "doc": "Load one tensor of the model."}
    assert c_guide(CPP.encode(), 8, "cpp", "raise")["guard"] == {"kind": "else", "source": "n > 3"}
    assert c_guide(RUST.encode(), 4, "rust", "raise") == {"guard": {"kind": "if", "source": "n > MAX"}, "doc": "Validate the request."}


def test_a_call_that_checks_a_condition_gives_it_as_the_guard() -> None:
    source = textwrap.dedent('''\
        // The forward pass.
        std::vector<at::Tensor> mha_fwd(at::Tensor &q) {
            auto dprops = at::cuda::getCurrentDeviceProperties();
            TORCH_CHECK(dprops->major >= 8, "FlashAttention only supports Ampere GPUs or newer.");
            at::TORCH_CHECK_VALUE(q.dim() == 4, "q must be 4-D, got ", q.dim());
            SLT_ERR(slot, "failed to decode");
            if (q.is_cpu()) {
                TORCH_CHECK(false, "q must be on CUDA");
            }
        }
        ''').encode()
    checks = {"TORCH_CHECK": 0, "TORCH_CHECK_VALUE": 0}
    assert c_guide(source, 4, "cpp", "raise", checks) == {"guard": {"kind": "assert", "source": "dprops->major >= 8"}, "doc": "The forward pass."}
    assert c_guide(source, 5, "cpp", "raise", checks)["guard"] == {"kind": "assert", "source": "q.dim() == 4"}
    assert "guard" not in c_guide(source, 6, "cpp", "log", checks)  # a call that checks nothing: no guard
    assert "guard" not in c_guide(source, 4, "cpp", "raise")  # without the table, as before
    assert c_guide(source, 8, "cpp", "raise", checks)["guard"] == {"kind": "if", "source": "q.is_cpu()"}  # `false` says nothing


@pytest.mark.parametrize("text", ["a\x1bb", "a\u202eb", "a\u200bb", "a\x07b"])
def test_hostile_text_costs_only_itself(text: str) -> None:
    assert clip(text) is None
    source = f'def f(n):\n    # {text}\n    if n:\n        raise ValueError("boom")\n'.encode()
    guide, _ = python_guide(source, 4)
    assert guide == {"guard": {"kind": "if", "source": "n"}}  # the comment is left out, the guard kept


def test_long_text_is_clipped() -> None:
    assert len(clip("x" * 1000)) == 300 and clip("x" * 1000).endswith("…")
    assert clip("   ") is None


def test_the_flags_the_message_names_come_first_then_those_with_help() -> None:
    row = lambda name, **more: {"kind": "flag", "name": name, "flag": "--" + name.replace("_", "-"), "path": "a/args.py", "line": 1, **more}  # noqa: E731
    table = {"enable_lora": [row("enable_lora", help="LoRA.")], "runner": [row("runner", default="'auto'")],
             "chunked": [row("chunked", default="True")], "quiet": [row("quiet", help="Less.")], "a": [row("a", help="A.")],
             "b": [row("b", help="B.")]}
    names = ["runner", "enable_lora", "quiet", "chunked", "missing"]
    got = pick_options(names, table, "a/x.py", "disable it with --chunked=False")
    assert [o["name"] for o in got] == ["chunked", "enable_lora", "quiet", "runner"]
    # a flag only the message names is looked up too
    assert [o["name"] for o in pick_options(["runner"], table, "a/x.py", "try --quiet")] == ["quiet", "runner"]
    assert len(pick_options(["a", "b", "quiet", "enable_lora", "runner"], table, "a/x.py", "")) == 4  # at most four


GO = textwrap.dedent('''\
    package server

    // PullModel downloads a model's layers.
    func (s *Server) PullModel(name string) error {
    \tif err != nil {
    \t\t// the registry may be unreachable
    \t\treturn fmt.Errorf("pull model manifest: %w", err)
    \t}
    \treturn nil
    }
    ''')


def test_go_guards_and_doc_comments() -> None:
    assert c_guide(GO.encode(), 7, "go", "raise") == {"guard": {"kind": "if", "source": "err != nil"}, "comment": "the registry may be unreachable",
                                                      "doc": "PullModel downloads a model's layers."}
